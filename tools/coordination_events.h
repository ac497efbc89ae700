// Event drafts for state, messages and handles (the coordination tools). One function per
// event kind, like tools/decision_events.h. Values are canonical JSON text (reducers/
// json_value.h); nothing here takes a secret.
#pragma once

#include <cstdint>
#include <string_view>

#include "log/envelope.h"
#include "tools/decision_events.h"

namespace las::tools {

// `owner_agent_id` is the private state's agent; empty for the blackboard.
log::EventDraft StateWrittenEvent(const Actor& actor, bool blackboard,
                                  std::string_view owner_agent_id, std::string_view key,
                                  uint64_t version, std::string_view reducer,
                                  std::string_view value);
log::EventDraft MessageSentEvent(const Actor& actor, std::string_view message_id,
                                 std::string_view to_agent_id, std::string_view subject,
                                 std::string_view body);
log::EventDraft MessageReadEvent(const Actor& actor, std::string_view message_id);
log::EventDraft MessageCompletedEvent(const Actor& actor, std::string_view message_id);
log::EventDraft MessageDeferredEvent(const Actor& actor, std::string_view message_id,
                                     int64_t until_micros);
log::EventDraft HandleCreatedEvent(const Actor& actor, std::string_view handle_id,
                                   std::string_view owner_agent_id, std::string_view media_type,
                                   std::string_view content);

}  // namespace las::tools
