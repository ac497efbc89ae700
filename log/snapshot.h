// A projection snapshot as stored in the log's `snapshots` column family (log/FORMAT.md,
// "Snapshots"): the folded state of every projection as of one event, so that a restart
// folds only the events after it. Snapshots are not events and not part of the chain; a
// Las may delete them, and a log without any is complete.
//
// This header is the record's codec only: the projection state bytes are opaque here
// (projections/ writes and reads them), and the checks a loader must make beyond the
// seal — the event at `sequence` exists and has `event_hash`, every digest matches the
// restored state — are the caller's (tools/live_projections.h does them).
//
// Thread safety: free functions over values; no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "log/chain_hash.h"

namespace las::log {

// One projection's saved state.
struct ProjectionState {
  std::string name;                   // Projection::name(), at most 255 bytes
  std::array<uint8_t, 32> digest{};   // raw SHA-256 of its canonical JSON at `sequence`
  std::string state;                  // the projection's own bytes (Projection::Save)
};

struct Snapshot {
  uint32_t projection_set_version = 0;  // projections::ProjectionSet::kVersion when written
  uint64_t sequence = 0;                // the last event folded into the states
  Hash event_hash{};                    // the chain hash of the event at `sequence`
  std::vector<ProjectionState> projections;
};

// FORMAT.md §Snapshots: the record's format version (the first field after the magic).
inline constexpr uint32_t kSnapshotFormatVersion = 2;

// The secret that seals snapshot records: the seal is a BLAKE2b-256 keyed with it. It is
// kept outside the log directory (tools/snapshot_key_file.h), so that whoever can write the
// log directory but cannot read the key cannot make a record that a loader accepts.
using SnapshotKey = std::array<uint8_t, 32>;

// The framed record: magic, versions, sequence, event hash, the projections, and the seal
// over everything before it.
std::string EncodeSnapshot(const Snapshot& snapshot, const SnapshotKey& key);

// Parses and checks a record. kCorruption: truncated, trailing bytes, wrong magic, or a
// seal that `key` did not make. kUnsupported: a record format version other than
// kSnapshotFormatVersion. Never reads out of bounds, whatever the bytes.
Result<Snapshot> DecodeSnapshot(std::string_view record, const SnapshotKey& key);

}  // namespace las::log
