// Typed, zero-copy access to the FlatBuffers envelope of an event, and the name of each
// event kind. Includes the generated code: include it only where events are built or read.
#pragma once

#include <string_view>

#include "log/event.h"
#include "log/events_generated.h"

namespace las::log {

// The envelope inside a stored event. The event must have come out of the log (which
// verified the buffer) and must outlive the returned pointer.
inline const fb::Envelope& EnvelopeOf(const StoredEvent& event) {
  return *fb::GetEnvelope(event.envelope.data());
}

// "ToolCallRequested", ...; "Unknown" for a kind this build does not know.
std::string_view KindName(fb::EventPayload kind);
// The kind with that name, or EventPayload::NONE.
fb::EventPayload KindFromName(std::string_view name);

}  // namespace las::log
