// LiveProjections: the server's own copy of every projection, kept current with the log it
// writes. Queries (sources, grants, state, mailboxes, onboarding) read it; decisions that
// need the newest state call CatchUp() first.
//
// Start-up (the first CatchUp()) restores the newest valid snapshot from the log
// (projections/snapshots.h) and folds only the events after it; a snapshot that fails any
// check (its seal is not this user's snapshot key, a damaged record, sequence beyond the head, another chain hash at its sequence, a state
// that does not parse or does not give its recorded digest) is ignored with a warning and
// the next older one is tried, down to a fold from sequence 1. After that CatchUp() folds
// whatever the log holds beyond the last folded sequence, read back through a verifying
// cursor — so the live state is always exactly what `las replay` rebuilds from the same
// events (same digests), snapshot or not.
//
// Every `snapshot_every` folded events (0: never) CatchUp() also takes a snapshot of the
// state it reached and keeps the newest two. With `snapshot_after_own_size`, a snapshot
// also waits until the events folded since the last one carry at least as many bytes as
// that snapshot's saved states: a state that keeps growing (every version of every
// blackboard key, every call) is then not re-serialized and re-digested every
// `snapshot_every` events — the snapshots' work stays proportional to what is appended
// instead of growing with the log's square — and a restart still folds a tail no larger
// than the snapshot it restores. Taking it must not stall the call whose
// CatchUp() it is (on a large log the digests alone take a second or more), so it is split
// (projections/snapshots.h): on the caller's thread only each projection's Save bytes are
// copied out (SaveSnapshotStates — a serialization, no digest, no sort, no I/O); one
// background thread per snapshot then restores those bytes into a private copy, computes the
// digests from it, encodes the record, writes it and prunes old ones (WriteSavedSnapshot).
// At most one write is in flight: if the next snapshot falls due while the previous write
// still runs, CatchUp() waits for it first (back-pressure, so a snapshot is still taken
// every `snapshot_every` events and at most one copy of the state exists besides the live
// one). The write's outcome is collected on the caller's thread — by the next CatchUp(),
// WaitForSnapshot() or the destructor, which waits for a write in flight — and a failure is
// a warning. A projection without Save (projections/projection.h) disables snapshots for
// this process, with one warning.
//
// Snapshots are sealed with the key in `snapshot_key_file` (tools/snapshot_key_file.h),
// read at start-up and created, when missing, by the first snapshot this process takes.
// Without a key file (""), or when it is unusable (another owner, open to others, not 32
// bytes: one warning), snapshots are neither restored nor taken and every start folds
// from sequence 1.
//
// Warnings go to `warn` (default: stderr, one line each); they name sequences and
// projections and status codes, never state content or key bytes.
//
// Threading: not thread-safe; use on the server's loop thread only. The snapshot writer
// thread touches only the log (thread-safe) and its own copy of the saved bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "log/event_log.h"
#include "log/snapshot.h"
#include "projections/projection_set.h"
#include "tools/snapshot_key_file.h"

namespace las::tools {

struct LiveOptions {
  // Write a snapshot after this many events were folded since the last one; 0 = never.
  uint64_t snapshot_every = 0;
  // See above: also wait for as many event bytes as the last snapshot's states had.
  bool snapshot_after_own_size = false;
  // The file that holds the snapshot key; "" = no snapshots.
  std::string snapshot_key_file;
  // The randomness for a new key; empty = libsodium's CSPRNG.
  RandomFill random_fill;
  // Receives each warning line; empty = stderr.
  std::function<void(std::string_view)> warn;
};

// What start-up did; for tests, benchmarks and logs.
struct LiveStartup {
  uint64_t snapshot_sequence = 0;  // the snapshot restored; 0 when none was used
  uint64_t ignored_snapshots = 0;  // snapshots that failed a check
  uint64_t folded = 0;             // events folded after the snapshot (or from 1)
};

class LiveProjections {
 public:
  explicit LiveProjections(log::EventLog& log, LiveOptions options = {})
      : log_(log), options_(std::move(options)) {}
  // Waits for a snapshot write in flight (its failure is a warning).
  ~LiveProjections();
  LiveProjections(const LiveProjections&) = delete;
  LiveProjections& operator=(const LiveProjections&) = delete;

  // Folds every event after sequence() up to the log's current head (the first call
  // restores a snapshot first, see above), then writes a snapshot if one is due. kCorruption
  // or kIo from the cursor (the state is then as of the last good event); a failed
  // snapshot write is only a warning.
  Status CatchUp();

  // For the thread that just appended `stored` (EventLog::AppendInPlace) at `range`: folds
  // those exact bytes without reading them back when they directly follow sequence(), each
  // with its chain hash (the next one's prev_hash; the range's last_hash for the last);
  // otherwise (another writer's events came between, or start-up has not run) it is
  // CatchUp(). Either way the state is the one `las replay` rebuilds: the bytes are what
  // the log stored and hashed.
  Status FoldStored(const log::AppendedRange& range, const std::vector<log::EventDraft>& stored);

  const projections::ProjectionSet& set() const { return set_; }
  uint64_t sequence() const { return set_.sequence(); }
  const LiveStartup& startup() const { return startup_; }
  // The sequence of the last snapshot this process took (handed to the writer thread) or
  // restored; 0 if none. Taken is not yet written: see WaitForSnapshot().
  uint64_t last_snapshot() const { return last_snapshot_; }
  // Blocks until no snapshot write is in flight and reports its outcome (a warning on
  // failure). For tests, benchmarks and an orderly shutdown.
  void WaitForSnapshot();
  // True while a snapshot write runs on the writer thread.
  bool snapshot_in_flight() const { return writing_.valid(); }
  // The named projection downcast to its type, or nullptr.
  template <typename T>
  const T* Get(std::string_view name) const {
    return dynamic_cast<const T*>(set_.Find(name));
  }

 private:
  Status Start();
  // Reads the key at start-up (`create` false) or, for the first snapshot, creates it;
  // false when snapshots cannot be used (then disabled, with one warning if unexpected).
  bool EnsureKey(bool create);
  // Snapshots only save time (log/FORMAT.md): stored ones that cannot even be listed (a
  // damaged table of their family, kCorruption) are warned of and left alone — no snapshot
  // is taken in this run, which would write into that family — instead of keeping the
  // server from starting on a log that verifies (probe AY2). False for any other error.
  bool SnapshotsUnreadable(const Status& listing);
  Status Fold();
  void MaybeSnapshot();
  // Collects the outcome of the write in flight if it has finished (or, with `wait`, once
  // it has).
  void CollectWrite(bool wait);
  void Warn(const std::string& line) const;

  log::EventLog& log_;
  LiveOptions options_;
  projections::ProjectionSet set_;
  LiveStartup startup_;
  bool started_ = false;
  bool snapshots_disabled_ = false;
  std::optional<log::SnapshotKey> key_;
  uint64_t last_snapshot_ = 0;
  // Bytes of the states saved by the last snapshot this process took, and of the event
  // envelopes folded since (snapshot_after_own_size).
  uint64_t last_snapshot_bytes_ = 0;
  uint64_t bytes_since_snapshot_ = 0;
  // The snapshot write in flight (invalid when none) and its sequence.
  std::future<Result<size_t>> writing_;
  uint64_t writing_sequence_ = 0;
  std::string last_write_failure_;  // said once while writes fail the same way
};

}  // namespace las::tools
