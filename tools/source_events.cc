#include "tools/source_events.h"

#include "base/printable_text.h"

#include <string>

#include "log/event_builder.h"
#include "tools/source_ids.h"

namespace las::tools {
namespace {

constexpr size_t kMaxReasonBytes = 256;

}  // namespace

log::EventDraft SourceEnabledEvent(std::string_view source_id, std::string_view agent_id,
                                   std::string_view session_id) {
  log::EventBuilder b;
  auto payload = fb::CreateSourceEnabledDirect(b.fbb(), std::string(source_id).c_str());
  return b.Finish(payload, agent_id, session_id);
}

log::EventDraft SourceDisabledEvent(std::string_view source_id, std::string_view reason,
                                    std::string_view agent_id, std::string_view session_id) {
  log::EventBuilder b;
  auto payload = fb::CreateSourceDisabledDirect(b.fbb(), std::string(source_id).c_str(),
                                                std::string(reason).c_str());
  return b.Finish(payload, agent_id, session_id);
}

Result<std::optional<log::EventDraft>> PlanSourceToggle(const std::vector<Source>& inventory,
                                                        std::string_view id, bool enable,
                                                        std::string_view reason,
                                                        std::string_view agent_id,
                                                        std::string_view session_id) {
  if (!enable && IsProtectedSource(id)) {
    return InvalidArgument(std::string(id) + " cannot be disabled");
  }
  const Source* source = FindSource(inventory, id);
  if (source == nullptr) {
    return NotFound("no source " + EscapeForTerminal(id) + " (see `las sources`)");
  }
  if (!enable && (reason.size() > kMaxReasonBytes || !IsPrintableText(reason))) {
    return InvalidArgument("the reason (--reason, or the tool's `reason`) is at most 256 bytes "
                           "of UTF-8 without control characters, not " +
                           QuotedForTerminal(reason));
  }
  if (source->enabled == enable) return std::optional<log::EventDraft>();
  return std::optional(enable ? SourceEnabledEvent(id, agent_id, session_id)
                              : SourceDisabledEvent(id, reason, agent_id, session_id));
}

}  // namespace las::tools
