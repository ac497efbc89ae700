#include "tools/coordination_events.h"

#include "log/event_builder.h"
#include "trust/digest.h"

namespace las::tools {
namespace {

flatbuffers::Offset<flatbuffers::String> Str(flatbuffers::FlatBufferBuilder& f,
                                             std::string_view s) {
  return f.CreateString(s.data(), s.size());
}

}  // namespace

log::EventDraft StateWrittenEvent(const Actor& actor, bool blackboard,
                                  std::string_view owner_agent_id, std::string_view key,
                                  uint64_t version, std::string_view reducer,
                                  std::string_view value) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateStateWritten(
      f, blackboard ? fb::StateScope::Blackboard : fb::StateScope::Private,
      Str(f, blackboard ? std::string_view() : owner_agent_id), Str(f, key), version,
      Str(f, reducer), Str(f, value), Str(f, trust::Sha256Hex(trust::Sha256(value))));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft MessageSentEvent(const Actor& actor, std::string_view message_id,
                                 std::string_view to_agent_id, std::string_view subject,
                                 std::string_view body) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateMessageSent(f, Str(f, message_id), Str(f, to_agent_id),
                                       Str(f, subject), Str(f, body));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft MessageReadEvent(const Actor& actor, std::string_view message_id) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageRead(b.fbb(), Str(b.fbb(), message_id));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft MessageCompletedEvent(const Actor& actor, std::string_view message_id) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageCompleted(b.fbb(), Str(b.fbb(), message_id));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft MessageDeferredEvent(const Actor& actor, std::string_view message_id,
                                     int64_t until_micros) {
  log::EventBuilder b;
  auto payload = fb::CreateMessageDeferred(b.fbb(), Str(b.fbb(), message_id), until_micros);
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft HandleCreatedEvent(const Actor& actor, std::string_view handle_id,
                                   std::string_view owner_agent_id, std::string_view media_type,
                                   std::string_view content) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto bytes = f.CreateVector(reinterpret_cast<const uint8_t*>(content.data()), content.size());
  auto payload = fb::CreateHandleCreated(f, Str(f, handle_id), Str(f, owner_agent_id),
                                         Str(f, media_type), content.size(),
                                         Str(f, trust::Sha256Hex(trust::Sha256(content))), bytes);
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

}  // namespace las::tools
