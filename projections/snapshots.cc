#include "projections/snapshots.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace las::projections {

namespace {

// Encodes `snapshot`, puts it under its sequence and deletes all but the newest `keep` —
// after deleting every record keyed beyond the head, which no load can use (copied from
// another or a longer log): counted among the newest, they would evict every new snapshot.
Result<size_t> PutAndPrune(log::EventLog& log, const log::Snapshot& snapshot,
                           const log::SnapshotKey& key, size_t keep) {
  const std::string record = log::EncodeSnapshot(snapshot, key);
  LAS_RETURN_IF_ERROR(log.PutSnapshot(snapshot.sequence, record));
  auto sequences = log.SnapshotSequences();
  if (!sequences.ok()) return sequences.status();
  const uint64_t head = log.head().sequence;
  size_t kept = 0;
  for (const uint64_t sequence : *sequences) {
    if (sequence <= head && kept < std::max<size_t>(keep, 1)) {
      ++kept;
      continue;
    }
    LAS_RETURN_IF_ERROR(log.DeleteSnapshot(sequence));
  }
  return record.size();
}

Status UnsupportedNames(const std::vector<std::string>& unsupported) {
  std::string names;
  for (const auto& name : unsupported) names += (names.empty() ? "" : ", ") + name;
  return Unsupported("projections without snapshot support: " + names);
}

}  // namespace

Result<size_t> WriteSnapshot(log::EventLog& log, const ProjectionSet& set,
                             const log::SnapshotKey& key, size_t keep) {
  if (set.sequence() == 0) return InvalidArgument("nothing folded: no snapshot to write");
  auto hash = log.EventHash(set.sequence());
  if (!hash.ok()) return hash.status();
  std::vector<std::string> unsupported;
  auto snapshot = set.Save(*hash, &unsupported);
  if (!snapshot) return UnsupportedNames(unsupported);
  return PutAndPrune(log, *snapshot, key, keep);
}

Result<log::Snapshot> SaveSnapshotStates(const ProjectionSet& set) {
  if (set.sequence() == 0) return InvalidArgument("nothing folded: no snapshot to write");
  std::vector<std::string> unsupported;
  auto states = set.SaveStates(&unsupported);
  if (!states) return UnsupportedNames(unsupported);
  return std::move(*states);
}

Result<size_t> WriteSavedSnapshot(log::EventLog& log, log::Snapshot states,
                                  const log::SnapshotKey& key, size_t keep) {
  auto hash = log.EventHash(states.sequence);
  if (!hash.ok()) return hash.status();
  states.event_hash = *hash;
  {
    // The copy lives only as long as its digests take; freed before the record is built.
    ProjectionSet copy;
    LAS_RETURN_IF_ERROR(copy.RestoreAndDigest(states));
  }
  return PutAndPrune(log, states, key, keep);
}

namespace {

// Why the snapshot at `key` cannot be used, or ok with `into` restored.
Status TryRestore(log::LogView& log, uint64_t key, const log::SnapshotKey& seal_key,
                  uint64_t head, ProjectionSet& into, uint64_t& state_bytes) {
  auto record = log.GetSnapshot(key);
  if (!record.ok()) return record.status();
  auto snapshot = log::DecodeSnapshot(*record, seal_key);
  if (!snapshot.ok()) return snapshot.status();
  if (snapshot->sequence != key) return Corruption("its recorded sequence differs from its key");
  if (snapshot->sequence == 0 || snapshot->sequence > head) {
    return Corruption("it is beyond the log's head (" + std::to_string(head) + ")");
  }
  auto hash = log.EventHash(snapshot->sequence);
  if (!hash.ok()) return hash.status();
  if (*hash != snapshot->event_hash) {
    return Corruption("the event at its sequence has another chain hash than recorded");
  }
  state_bytes = 0;
  for (const auto& projection : snapshot->projections) state_bytes += projection.state.size();
  return into.Restore(*snapshot);
}

}  // namespace

Result<LoadedProjections> LoadNewestSnapshot(log::LogView& log, uint64_t head,
                                             const log::SnapshotKey& seal_key) {
  LoadedProjections loaded;
  auto sequences = log.SnapshotSequences();
  if (!sequences.ok()) return sequences.status();
  for (uint64_t key : *sequences) {
    ProjectionSet candidate;
    uint64_t state_bytes = 0;
    Status status = TryRestore(log, key, seal_key, head, candidate, state_bytes);
    if (status.code() == Code::kIo) return status;
    if (status.ok()) {
      loaded.set = std::move(candidate);
      loaded.snapshot_sequence = key;
      loaded.state_bytes = state_bytes;
      return loaded;
    }
    loaded.ignored.push_back("snapshot at sequence " + std::to_string(key) +
                             " ignored: " + status.ToString());
  }
  return loaded;
}

Result<LoadedProjections> LoadNewestSnapshot(log::EventLog& log, const log::SnapshotKey& key) {
  return LoadNewestSnapshot(log, log.head().sequence, key);
}

Result<uint64_t> FoldFromNewestSnapshot(log::LogView& log, uint64_t head,
                                        const std::optional<log::SnapshotKey>& key,
                                        ProjectionSet& set) {
  if (key) {
    auto loaded = LoadNewestSnapshot(log, head, *key);
    // Snapshots that cannot even be listed only cost the whole fold.
    if (!loaded.ok() && loaded.status().code() != Code::kCorruption) return loaded.status();
    if (loaded.ok() && loaded->snapshot_sequence != 0) set = std::move(loaded->set);
  }
  const uint64_t snapshot_sequence = set.sequence();
  auto cursor = log.Read(snapshot_sequence + 1);
  if (!cursor.ok()) return cursor.status();
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok()) return more.status();
    if (!*more) return snapshot_sequence;
    set.Apply((*cursor)->current());
  }
}

}  // namespace las::projections
