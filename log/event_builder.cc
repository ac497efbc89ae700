#include "log/event_builder.h"

namespace las::log {

EventDraft EventBuilder::FinishUntyped(fb::EventPayload kind, flatbuffers::Offset<void> payload,
                                       std::string_view agent_id, std::string_view session_id) {
  auto agent = fbb_.CreateString(agent_id.data(), agent_id.size());
  auto session = fbb_.CreateString(session_id.data(), session_id.size());
  const fb::Hash32 placeholder_hash{};
  auto envelope = fb::CreateEnvelope(fbb_, /*sequence=*/0, /*time_micros=*/0, agent, session,
                                     &placeholder_hash, kind, payload);
  fb::FinishEnvelopeBuffer(fbb_, envelope);
  EventDraft draft;
  draft.envelope.assign(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  return draft;
}

}  // namespace las::log
