// EventBuilder: makes an EventDraft from one payload table.
//
//   EventBuilder b;
//   auto payload = fb::CreateSessionOpenedDirect(b.fbb(), "2024-11-05", "client", "1.0", "stdio");
//   EventDraft draft = b.Finish(payload, agent_id, session_id);
//
// A builder makes exactly one draft; it is not thread-safe (use one per thread).
#pragma once

#include <string_view>

#include "log/envelope.h"

namespace las::log {

class EventBuilder {
 public:
  EventBuilder() { fbb_.ForceDefaults(true); }  // placeholders must exist to be patched

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  template <typename Payload>
  EventDraft Finish(flatbuffers::Offset<Payload> payload, std::string_view agent_id,
                    std::string_view session_id) {
    return FinishUntyped(fb::EventPayloadTraits<Payload>::enum_value, payload.Union(),
                         agent_id, session_id);
  }

 private:
  EventDraft FinishUntyped(fb::EventPayload kind, flatbuffers::Offset<void> payload,
                           std::string_view agent_id, std::string_view session_id);

  flatbuffers::FlatBufferBuilder fbb_;
};

}  // namespace las::log
