// Event drafts for source state: SourceEnabled / SourceDisabled. The actor is the agent
// of the session that asked (las.admin) or empty for the operator (the CLI).
#pragma once

#include <string_view>

#include "log/envelope.h"

namespace las::tools {

log::EventDraft SourceEnabledEvent(std::string_view source_id, std::string_view agent_id,
                                   std::string_view session_id);
log::EventDraft SourceDisabledEvent(std::string_view source_id, std::string_view reason,
                                    std::string_view agent_id, std::string_view session_id);

}  // namespace las::tools
