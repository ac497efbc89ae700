// Projection: one read model folded from the log by a pure reducer.
//
// Apply() must be deterministic: the same events in the same order give the same
// CanonicalJson(), on every machine and after every restart — that is what the digest
// checks. CanonicalJson() is compact JSON with object keys sorted and no insignificant
// whitespace. Not thread-safe: the owner serializes Apply() and queries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "log/event.h"

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
  virtual std::string CanonicalJson() const = 0;
};

// Lowercase hex SHA-256 of the projection's canonical JSON.
std::string Digest(const Projection& projection);

}  // namespace las::projections
