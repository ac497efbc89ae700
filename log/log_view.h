// LogView: what both the log's writer (EventLog) and a follower in another process
// (LogReader) read — verified events from a sequence on, one event's stored chain hash, and
// the projection snapshots (log/snapshot.h; FORMAT.md §Snapshots). A snapshot loader
// (projections/snapshots.h) reads through it, so a server's restart and an operator's view
// start from the same snapshots.
//
// Thread safety: as the implementing class says (EventLog: any thread; LogReader: one).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "log/chain_hash.h"
#include "log/event_cursor.h"

namespace las::log {

class LogView {
 public:
  // A verifying cursor from `from` (event_cursor.h): each event is checked against the
  // stored hash of the one before it, so a cursor from N trusts event N-1's stored hash.
  virtual Result<std::unique_ptr<EventCursor>> Read(uint64_t from = 1) = 0;

  // The chain hash stored with event `sequence` (no verification beyond its size):
  // kNotFound for 0 and beyond the head, kCorruption for a garbled value, kIo.
  virtual Result<Hash> EventHash(uint64_t sequence) = 0;

  // Snapshots are kept in the `snapshots` column family, keyed by the sequence they were
  // taken at. They are not events: not chained, not covered by Verify(), never changing the
  // head. The bytes are opaque here; the reader decides whether a record is usable.
  // The sequences that hold a snapshot, newest first. kIo.
  virtual Result<std::vector<uint64_t>> SnapshotSequences() = 0;
  // The record at `sequence`; kNotFound if there is none. kIo.
  virtual Result<std::string> GetSnapshot(uint64_t sequence) = 0;

 protected:
  ~LogView() = default;
};

}  // namespace las::log
