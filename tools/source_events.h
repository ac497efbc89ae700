// Event drafts for source state: SourceEnabled / SourceDisabled. The actor is the agent
// of the session that asked (las.admin) or empty for the operator (the CLI).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "log/envelope.h"
#include "tools/sources.h"

namespace las::tools {

log::EventDraft SourceEnabledEvent(std::string_view source_id, std::string_view agent_id,
                                   std::string_view session_id);
log::EventDraft SourceDisabledEvent(std::string_view source_id, std::string_view reason,
                                    std::string_view agent_id, std::string_view session_id);

// Enabling or disabling source `id`, validated against `inventory` (the CLI's from the
// log, a running server's from its federation): kInvalidArgument for a protected source
// (IsProtectedSource: las, las.std, las.admin) when disabling, kNotFound for a source the
// inventory does not list; nullopt when the source already is in that state (a protected
// source is always enabled; a disabled one keeps its first reason), so nothing is recorded;
// else the one draft to append. The CLI's direct path, a server's operator channel
// (tools/operator_channel.h) and las.admin's tools all use it, so all record the same event.
Result<std::optional<log::EventDraft>> PlanSourceToggle(const std::vector<Source>& inventory,
                                                        std::string_view id, bool enable,
                                                        std::string_view reason,
                                                        std::string_view agent_id,
                                                        std::string_view session_id);

}  // namespace las::tools
