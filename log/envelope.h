// Typed, zero-copy access to the FlatBuffers envelope of an event, and the name of each
// event kind. Includes the generated code: include it only where events are built or read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "log/event.h"
#include "log/events_generated.h"

namespace las::log {

// The envelope inside a stored event. The event must have come out of the log (which
// verified the buffer) and must outlive the returned pointer.
inline const fb::Envelope& EnvelopeOf(const StoredEvent& event) {
  return *fb::GetEnvelope(event.envelope.data());
}

// The prev_hash of a draft the log has stored (EventLog::AppendInPlace filled it in): the
// chain hash of the event before it.
inline Hash PrevHashOf(const EventDraft& stored) {
  Hash hash;
  const auto* bytes = fb::GetEnvelope(stored.envelope.data())->prev_hash()->bytes();
  std::memcpy(hash.data(), bytes->data(), hash.size());
  return hash;
}

// Whether `size` bytes at `bytes` (aligned as a heap allocation) hold an envelope every
// reader may use: a valid FlatBuffers Envelope with a payload — a kind and its table (a
// union whose type is set but whose value is missing verifies, yet no reducer can read
// it). A kind this build does not know passes (FORMAT.md: readers skip it).
bool IsUsableEnvelope(const uint8_t* bytes, size_t size);

// "ToolCallRequested", ...; "Unknown" for a kind this build does not know.
std::string_view KindName(fb::EventPayload kind);
// The kind with that name, or EventPayload::NONE.
fb::EventPayload KindFromName(std::string_view name);

}  // namespace las::log
