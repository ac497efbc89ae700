// The two shapes an event takes outside the log: a draft on its way in, a stored event on
// its way out. Neither header pulls in FlatBuffers or RocksDB; log/envelope.h gives typed
// access to the FlatBuffers envelope inside.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/chain_hash.h"

namespace las::log {

// A finished `las.fb.Envelope` FlatBuffer whose sequence, time and prev_hash are still
// placeholders. Build one with log/event_builder.h. The log patches the placeholders when
// it assigns the event its place, so a draft can be built on any thread.
struct EventDraft {
  std::vector<uint8_t> envelope;
};

// One event as stored: its sequence, its chain hash and the exact envelope bytes that
// the hash covers. Owns its bytes.
struct StoredEvent {
  uint64_t sequence = 0;
  Hash hash{};
  std::string envelope;
};

// The last event of a log: (0, genesis) for an empty log.
struct Head {
  uint64_t sequence = 0;
  Hash hash{};
};

}  // namespace las::log
