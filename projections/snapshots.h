// Writing and loading projection snapshots in a log (log/snapshot.h; FORMAT.md
// §Snapshots). A snapshot lets a restart fold only the events after it; it never changes
// what the state is: a restored set has the same digests as a fold from sequence 1 (each
// projection's digest is checked on load), and `las replay` never uses snapshots.
//
// Thread safety: the functions touch only their arguments; the log is thread-safe, the
// set is not (the caller serializes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "log/event_log.h"
#include "log/log_view.h"
#include "log/snapshot.h"
#include "projections/projection_set.h"

namespace las::projections {

// Every record is sealed with a `key` (log/snapshot.h) and a loader accepts only records
// sealed with its own key.
//
// Writes a snapshot of `set` (as of set.sequence(), which must be an event of `log`) and
// then deletes all but the newest `keep` snapshots (keep >= 1). Returns the record's size.
// Errors: kUnsupported when some projection does not implement Save (the message names
// them; nothing is written), kInvalidArgument for an empty set, kNotFound/kIo from the log.
Result<size_t> WriteSnapshot(log::EventLog& log, const ProjectionSet& set,
                             const log::SnapshotKey& key, size_t keep = 2);

// WriteSnapshot in two halves, so that the expensive half can run off the set's thread
// (tools/live_projections.h). SaveSnapshotStates, on the set's thread: each projection's
// Save bytes as of set.sequence() (ProjectionSet::SaveStates; digests and event hash still
// zero) — kInvalidArgument for an empty set, kUnsupported as WriteSnapshot.
// WriteSavedSnapshot, on any thread (it touches only `log` and `states`): restores the
// states into a private fresh set, computes the digests from it, fetches the event hash,
// encodes, writes, then keeps the newest `keep` as WriteSnapshot. kCorruption if the
// states do not restore (nothing is written); kNotFound/kIo from the log.
Result<log::Snapshot> SaveSnapshotStates(const ProjectionSet& set);
Result<size_t> WriteSavedSnapshot(log::EventLog& log, log::Snapshot states,
                                  const log::SnapshotKey& key, size_t keep = 2);

struct LoadedProjections {
  ProjectionSet set;                 // restored from a snapshot, or fresh
  uint64_t snapshot_sequence = 0;    // the snapshot used; 0 when none was
  uint64_t state_bytes = 0;          // its projections' saved states, in bytes
  std::vector<std::string> ignored;  // why each newer snapshot was ignored (no secrets)
};

// The newest usable snapshot of `log`, whose head is `head`, restored; a fresh set when
// there is none. A snapshot is ignored (with a line in `ignored`, and the next older one is
// tried) when its record does not decode (seal, truncation, version), its key and recorded
// sequence differ, its sequence is beyond `head`, the event at its sequence has another
// chain hash than recorded, or a projection's state does not parse or does not give the
// recorded digest. Only a log read failure is an error (kIo; kCorruption when the
// snapshots cannot even be listed).
Result<LoadedProjections> LoadNewestSnapshot(log::LogView& log, uint64_t head,
                                             const log::SnapshotKey& key);
// The same for the writer, at its head.
Result<LoadedProjections> LoadNewestSnapshot(log::EventLog& log, const log::SnapshotKey& key);

// Folds every event of `log`, whose head is `head`, into `set` (fresh): the newest snapshot
// usable with `key` and then each event after it, each verified against the chain from the
// snapshot's event on; with no usable snapshot (or no key: nullopt), every event from
// sequence 1. Returns the sequence of the snapshot used, 0 for none. Errors: the cursor's
// (kCorruption naming the first bad sequence, kIo) and kIo from reading snapshots.
// The events before the snapshot are not verified again — they were when it was taken, and
// its seal and the event hash it names bind it to them: this is for a view of the current
// state (the CLI's), as a server's start is; `las replay` verifies everything.
Result<uint64_t> FoldFromNewestSnapshot(log::LogView& log, uint64_t head,
                                        const std::optional<log::SnapshotKey>& key,
                                        ProjectionSet& set);

}  // namespace las::projections
