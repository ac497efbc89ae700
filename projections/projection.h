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
  virtual void Apply(uint64_t sequence, const fb::Envelope& event) = 0;
  // Writes the canonical JSON of the current state (one top-level object) into `out`.
  virtual void WriteCanonical(CanonicalWriter& out) const = 0;

  // The canonical JSON as a string.
  std::string CanonicalJson() const;
};

// Lowercase hex SHA-256 of the projection's canonical JSON, computed without
// materializing the text.
std::string Digest(const Projection& projection);

}  // namespace las::projections
