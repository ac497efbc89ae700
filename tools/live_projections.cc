#include "tools/live_projections.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/note.h"
#include "log/envelope.h"
#include "projections/snapshots.h"
#include "tools/sealed_log.h"

namespace las::tools {

Status LiveProjections::CatchUp() {
  if (!started_) {
    LAS_RETURN_IF_ERROR(Start());
    started_ = true;
  }
  LAS_RETURN_IF_ERROR(Fold());
  MaybeSnapshot();
  return Status::Ok();
}

Status LiveProjections::FoldStored(const log::AppendedRange& range,
                                   const std::vector<log::EventDraft>& stored) {
  if (!started_ || range.first != set_.sequence() + 1) return CatchUp();
  log::StoredEvent event;
  for (size_t i = 0; i < stored.size(); ++i) {
    event.sequence = range.first + i;
    event.hash = i + 1 < stored.size() ? log::PrevHashOf(stored[i + 1]) : range.last_hash;
    event.envelope.assign(reinterpret_cast<const char*>(stored[i].envelope.data()),
                          stored[i].envelope.size());
    set_.Apply(event);
    bytes_since_snapshot_ += stored[i].envelope.size();
  }
  MaybeSnapshot();
  return Status::Ok();
}

bool LiveProjections::EnsureKey(bool create) {
  if (key_) return true;
  if (snapshots_disabled_) return false;
  if (options_.snapshot_key_file.empty()) {
    snapshots_disabled_ = true;
    return false;
  }
  auto key = create ? ReadOrCreateSnapshotKey(options_.snapshot_key_file, options_.random_fill)
                    : ReadSnapshotKey(options_.snapshot_key_file);
  if (key.ok()) {
    key_ = *key;
    return true;
  }
  // No key yet: nothing stored can be restored, and the first snapshot makes one.
  if (!create && key.status().code() == Code::kNotFound) return false;
  snapshots_disabled_ = true;
  // The code's name would read as the log's state ("corruption" is a broken chain); the
  // fault is the key file's. A denial's message says how to fix the file already.
  std::string why = key.status().message();
  if (key.status().code() == Code::kCorruption) {
    why += "; give the right --snapshot-key, or move the file away so that a new key is made "
           "(what the old key sealed then shows as unvouched)";
  }
  Warn("snapshots disabled: " + why);
  return false;
}

Status LiveProjections::Start() {
  projections::LoadedProjections loaded;
  if (EnsureKey(/*create=*/false)) {
    auto restored = projections::LoadNewestSnapshot(log_, *key_);
    if (restored.ok()) {
      loaded = std::move(*restored);
    } else if (!SnapshotsUnreadable(restored.status())) {
      return restored.status();
    }
  } else {
    // Not restorable without the key that sealed them. Say why: snapshots off, a key
    // file not made yet (not a fault: the next snapshot makes it), or an unusable one
    // (its warning came from EnsureKey).
    std::string why = "no usable snapshot key";
    if (options_.snapshot_key_file.empty()) {
      why = "snapshots are off (no snapshot key file)";
    } else if (!snapshots_disabled_) {
      why = options_.snapshot_every == 0
                ? "the snapshot key file does not exist"
                : "the snapshot key file does not exist yet (the next snapshot creates a "
                  "new key)";
    }
    if (auto stored = log_.SnapshotSequences(); stored.ok()) {
      for (uint64_t sequence : *stored) {
        loaded.ignored.push_back("snapshot at sequence " + std::to_string(sequence) +
                                 " ignored: " + why);
      }
    } else if (!SnapshotsUnreadable(stored.status())) {
      return stored.status();
    }
  }
  for (const auto& why : loaded.ignored) Warn(why);
  startup_.ignored_snapshots = loaded.ignored.size();
  startup_.snapshot_sequence = loaded.snapshot_sequence;
  if (loaded.snapshot_sequence != 0) {
    set_ = std::move(loaded.set);
    last_snapshot_ = loaded.snapshot_sequence;
    last_snapshot_bytes_ = loaded.state_bytes;  // the size rule holds across a restart too
    loaded = projections::LoadedProjections{};
#ifdef __GLIBC__
    // The record and its decoded copy (tens of MiB on a large log) are freed by now; hand
    // the pages back so the server's resident size is its state, not the load's peak.
    ::malloc_trim(0);
#endif
  } else if (!loaded.ignored.empty()) {
    Warn("no usable snapshot: folding the log from sequence 1");
  }
  const uint64_t from = set_.sequence();
  LAS_RETURN_IF_ERROR(Fold());
  startup_.folded = set_.sequence() - from;
  return Status::Ok();
}

bool LiveProjections::SnapshotsUnreadable(const Status& listing) {
  if (listing.code() != Code::kCorruption) return false;
  Warn("the stored snapshots cannot be read (" + listing.message() +
       "): folding the log from sequence 1 and taking no snapshot; every start does the same "
       "while the damaged snapshot data is there (log/FORMAT.md, Snapshots)");
  snapshots_disabled_ = true;
  return true;
}

Status LiveProjections::Fold() {
  if (log_.head().sequence <= set_.sequence()) return Status::Ok();
  auto cursor = log_.Read(set_.sequence() + 1);
  if (!cursor.ok()) return cursor.status();
  while (true) {
    auto next = (*cursor)->Next();
    if (!next.ok()) return next.status();
    if (!*next) return Status::Ok();
    set_.Apply((*cursor)->current());
    bytes_since_snapshot_ += (*cursor)->current().envelope.size();
  }
}

LiveProjections::~LiveProjections() { CollectWrite(/*wait=*/true); }

void LiveProjections::WaitForSnapshot() { CollectWrite(/*wait=*/true); }

void LiveProjections::CollectWrite(bool wait) {
  if (!writing_.valid()) return;
  if (!wait && writing_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  Result<size_t> written = writing_.get();  // leaves writing_ invalid
  if (written.ok()) {
    last_write_failure_.clear();
    return;
  }
  const std::string at = "writing a snapshot at sequence " + std::to_string(writing_sequence_) + " failed: ";
  if (written.status().code() == Code::kCorruption) {
    // The log's files are damaged: every later write would fail the same way, a line each
    // (probe IX5: 1,200 lines, and no word of what to do).
    snapshots_disabled_ = true;
    Warn(at + WithRestoreAdvice(written.status()).ToString() +
         "; no more snapshots are taken until las restarts");
    return;
  }
  if (written.status().ToString() == last_write_failure_) return;
  last_write_failure_ = written.status().ToString();
  Warn(at + last_write_failure_ + " (said once while later ones fail the same way)");
}

void LiveProjections::MaybeSnapshot() {
  CollectWrite(/*wait=*/false);
  if (options_.snapshot_every == 0 || snapshots_disabled_) return;
  if (set_.sequence() - last_snapshot_ < options_.snapshot_every) return;  // no overflow
  if (options_.snapshot_after_own_size && bytes_since_snapshot_ < last_snapshot_bytes_) return;
  if (!EnsureKey(/*create=*/true)) return;
  CollectWrite(/*wait=*/true);  // back-pressure: one write in flight at most
  // Taken or failed, the next attempt is `snapshot_every` events later.
  last_snapshot_ = set_.sequence();
  bytes_since_snapshot_ = 0;
  auto states = projections::SaveSnapshotStates(set_);
  if (!states.ok()) {
    if (states.status().code() == Code::kUnsupported) {
      snapshots_disabled_ = true;
      Warn("snapshots disabled: " + states.status().message());
    } else {
      Warn("taking a snapshot at sequence " + std::to_string(set_.sequence()) +
           " failed: " + states.status().ToString());
    }
    return;
  }
  writing_sequence_ = set_.sequence();
  last_snapshot_bytes_ = 0;
  for (const auto& projection : states->projections) {
    last_snapshot_bytes_ += projection.state.size();
  }
  log::EventLog* log = &log_;
  auto saved = std::make_shared<log::Snapshot>(std::move(*states));
  auto write = [log, saved, key = *key_] {
    return projections::WriteSavedSnapshot(*log, std::move(*saved), key);
  };
  try {
    writing_ = std::async(std::launch::async, write);  // a copy: `write` stays usable
  } catch (const std::system_error&) {
    // No thread to be had: write on this thread rather than not at all.
    std::promise<Result<size_t>> now;
    now.set_value(write());
    writing_ = now.get_future();
  }
}

void LiveProjections::Warn(const std::string& line) const {
  if (options_.warn) {
    options_.warn(line);
  } else {
    Note("%s\n", line.c_str());
  }
}

}  // namespace las::tools
