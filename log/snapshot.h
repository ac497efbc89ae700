// A projection snapshot as stored in the log's `snapshots` column family (log/FORMAT.md,
// "Snapshots"): the folded state of every projection as of one event, so that a restart
// folds only the events after it. Snapshots are not events and not part of the chain; a
// Las may delete them, and a log without any is complete.
//
// This header is the record's codec only: the projection state bytes are opaque here
// (projections/ writes and reads them), and the checks a loader must make beyond the
// checksum — the event at `sequence` exists and has `event_hash`, every digest matches the
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
inline constexpr uint32_t kSnapshotFormatVersion = 1;

// The framed record: magic, versions, sequence, event hash, the projections, and a
// BLAKE2b-256 checksum over everything before it.
std::string EncodeSnapshot(const Snapshot& snapshot);

// Parses and checks a record. kCorruption: truncated, trailing bytes, wrong magic or
// checksum. kUnsupported: a record format version other than kSnapshotFormatVersion.
// Never reads out of bounds, whatever the bytes.
Result<Snapshot> DecodeSnapshot(std::string_view record);

}  // namespace las::log
