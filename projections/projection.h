// Projection: one read model folded from the log by a pure reducer.
//
// Apply() must be deterministic: the same events in the same order give the same
// canonical text, on every machine and after every restart — that is what the digest
// checks. WriteCanonical() writes that text (compact JSON, object members in ascending key
// order; projections/canonical_writer.h) straight into a writer, with no intermediate
// tree; CanonicalJson() returns it as a string for inspection, and Digest() is the
// SHA-256 of exactly those bytes, streamed. Not thread-safe: the owner serializes Apply()
// and queries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "log/event.h"
#include "projections/canonical_writer.h"

namespace las::fb {
struct Envelope;
}

namespace las::projections {

class Projection {
 public:
  virtual ~Projection() = default;
  // Stable name, e.g. "calls"; used by `las inspect NAME` and in digests.
  virtual std::string_view name() const = 0;
  // `chain_hash` is the event's hash in the log's chain: a projection whose records point
  // back at events (to be read again later) keeps it, and a read-back that finds another
  // hash there refuses the event (tools/coordination.cc). The others ignore it.
  virtual void Apply(uint64_t sequence, const log::Hash& chain_hash,
                     const fb::Envelope& event) = 0;
  // Writes the canonical JSON of the current state (one top-level object) into `out`.
  virtual void WriteCanonical(CanonicalWriter& out) const = 0;

  // The canonical JSON as a string.
  std::string CanonicalJson() const;

  // Snapshots (projections/snapshots.h). Save appends this projection's whole state to
  // `out` (projections/state_codec.h is the codec to use) and returns true; Restore loads
  // such bytes into a FRESH projection and returns false if they do not parse (the
  // projection is then discarded). After Restore the caller checks that Digest() equals the
  // digest recorded in the snapshot: that catches damaged bytes. It does not catch a lossy
  // codec — a server records the digests of a restored copy (ProjectionSet::RestoreAndDigest)
  // — which only a restore compared with a fold shows (`las replay`, the round-trip tests).
  //
  // The defaults make a projection "not snapshottable": Save returns false, and then no
  // snapshot is written at all, so every start-up folds the log from sequence 1 (correct,
  // only slower). Implement both together, and bump ProjectionSet::kVersion whenever the
  // bytes Save writes change meaning.
  virtual bool Save(std::string& out) const {
    (void)out;
    return false;
  }
  virtual bool Restore(std::string_view state) {
    (void)state;
    return false;
  }
};

// Lowercase hex SHA-256 of the projection's canonical JSON, computed without
// materializing the text.
std::string Digest(const Projection& projection);

}  // namespace las::projections
