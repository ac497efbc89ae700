#include "log/envelope.h"

namespace las::log {

bool IsUsableEnvelope(const uint8_t* bytes, size_t size) {
  flatbuffers::Verifier verifier(bytes, size);
  if (!fb::VerifyEnvelopeBuffer(verifier)) return false;
  const fb::Envelope* envelope = fb::GetEnvelope(bytes);
  return envelope->payload_type() != fb::EventPayload::NONE && envelope->payload() != nullptr;
}

std::string_view KindName(fb::EventPayload kind) {
  const auto index = static_cast<size_t>(kind);
  if (kind == fb::EventPayload::NONE || kind > fb::EventPayload::MAX) return "Unknown";
  return fb::EnumNamesEventPayload()[index];
}

fb::EventPayload KindFromName(std::string_view name) {
  for (auto kind : fb::EnumValuesEventPayload()) {
    if (kind != fb::EventPayload::NONE && KindName(kind) == name) return kind;
  }
  return fb::EventPayload::NONE;
}

}  // namespace las::log
