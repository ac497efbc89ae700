#include "tools/coordination_events.h"

#include "tools/event_fields.h"

namespace las::tools {

using event_fields::Bytes;
using event_fields::FinishAs;
using event_fields::Sha256HexOf;
using event_fields::Str;

log::EventDraft StateWrittenEvent(const Actor& actor, bool blackboard,
                                  std::string_view owner_agent_id, std::string_view key,
                                  uint64_t version, std::string_view reducer,
                                  std::string_view value) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateStateWritten(
      f, blackboard ? fb::StateScope::Blackboard : fb::StateScope::Private,
      Str(f, blackboard ? std::string_view() : owner_agent_id), Str(f, key), version,
      Str(f, reducer), Str(f, value), Str(f, Sha256HexOf(value)));
  return FinishAs(b, payload, actor);
}

log::EventDraft MessageSentEvent(const Actor& actor, std::string_view message_id,
                                 std::string_view to_agent_id, std::string_view subject,
                                 std::string_view body) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateMessageSent(f, Str(f, message_id), Str(f, to_agent_id),
                                       Str(f, subject), Str(f, body));
  return FinishAs(b, payload, actor);
}

log::EventDraft MessageReadEvent(const Actor& actor, std::string_view message_id) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageRead(b.fbb(), Str(b.fbb(), message_id));
  return FinishAs(b, payload, actor);
}

log::EventDraft MessageCompletedEvent(const Actor& actor, std::string_view message_id) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageCompleted(b.fbb(), Str(b.fbb(), message_id));
  return FinishAs(b, payload, actor);
}

log::EventDraft MessageDeferredEvent(const Actor& actor, std::string_view message_id,
                                     int64_t until_micros) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageDeferred(b.fbb(), Str(b.fbb(), message_id), until_micros);
  return FinishAs(b, payload, actor);
}

log::EventDraft HandleCreatedEvent(const Actor& actor, std::string_view handle_id,
                                   std::string_view owner_agent_id, std::string_view media_type,
                                   std::string_view content) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateHandleCreated(f, Str(f, handle_id), Str(f, owner_agent_id),
                                         Str(f, media_type), content.size(),
                                         Str(f, Sha256HexOf(content)), Bytes(f, content));
  return FinishAs(b, payload, actor);
}

}  // namespace las::tools
