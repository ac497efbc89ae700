// Field helpers shared by the event-draft builders in tools/ (decision_events.cc,
// coordination_events.cc, grant_events.cc): strings and byte vectors from views, the hex
// SHA-256 of a text, and finishing a draft as an Actor. Only those .cc files include it.
// Stateless; each call writes into the builder it is given (not thread-safe, like it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "log/event_builder.h"
#include "tools/decision_events.h"
#include "trust/digest.h"

namespace las::tools::event_fields {

inline flatbuffers::Offset<flatbuffers::String> Str(flatbuffers::FlatBufferBuilder& f,
                                                    std::string_view s) {
  return f.CreateString(s.data(), s.size());
}

inline flatbuffers::Offset<flatbuffers::Vector<uint8_t>> Bytes(flatbuffers::FlatBufferBuilder& f,
                                                               std::string_view bytes) {
  return f.CreateVector(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// Lower-case hex SHA-256 of `text` (as recorded beside values and handle contents).
inline std::string Sha256HexOf(std::string_view text) {
  return trust::Sha256Hex(trust::Sha256(text));
}

// The draft of `payload`, attributed to `actor`'s agent and session.
template <typename Payload>
log::EventDraft FinishAs(log::EventBuilder& b, flatbuffers::Offset<Payload> payload,
                         const Actor& actor) {
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

}  // namespace las::tools::event_fields
