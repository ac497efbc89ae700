// EventCursor: walks a log in sequence order and verifies every event as it goes.
//
// For each event it checks, in this order: the key is an 8-byte sequence that follows the
// previous one with no gap; the value holds a 32-byte hash and a valid Envelope FlatBuffer;
// the envelope's own sequence equals the key; its prev_hash equals the previous event's
// hash; the recomputed chain hash equals the stored one. At the end it checks that the
// last event is the head recorded in the metadata. The first failure stops the cursor with
// kCorruption and first_bad_sequence() names the sequence where the chain breaks.
//
// A cursor reads one consistent view of the log (a RocksDB snapshot for a writer's log;
// the state at the last catch-up for a follower). Not thread-safe; it must not outlive the
// EventLog or LogReader that made it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "log/event.h"

namespace las::log {

class EventCursor {
 public:
  virtual ~EventCursor() = default;

  // Moves to the next event. true: current() is valid. false: the end, and the chain up to
  // it verified against the head. Error: kCorruption (see first_bad_sequence()) or kIo.
  virtual Result<bool> Next() = 0;

  // The current event; valid after Next() returned true, until the next call.
  virtual const StoredEvent& current() const = 0;

  // After a kCorruption from Next(): the first sequence at which the chain is broken.
  virtual std::optional<uint64_t> first_bad_sequence() const = 0;

  // The head of the view this cursor reads.
  virtual Head head() const = 0;
  // The head seal record stored beside that head (log/head_seal.h; nullopt: none), read
  // with it: a follower's later reads may see a later head.
  virtual const std::optional<std::string>& head_seal_record() const = 0;
};

}  // namespace las::log
