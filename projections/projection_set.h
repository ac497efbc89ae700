// ProjectionSet: every projection this build knows, fed each event in log order.
//
// Restart and audit both come down to: fold the log into a fresh set, compare digests.
// Not thread-safe: the owner serializes Apply() and queries.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "log/event.h"
#include "projections/projection.h"

namespace las::projections {

class ProjectionSet {
 public:
  ProjectionSet();  // all known projections, empty
  ~ProjectionSet();
  ProjectionSet(ProjectionSet&&) noexcept;
  ProjectionSet& operator=(ProjectionSet&&) noexcept;

  // Folds one event (which came out of a verifying cursor) into every projection.
  void Apply(const log::StoredEvent& event);
  // The last sequence folded; 0 when none.
  uint64_t sequence() const { return sequence_; }

  // (name, hex SHA-256 of canonical JSON) for each projection, sorted by name.
  std::vector<std::pair<std::string, std::string>> Digests() const;
  // The projection with that name, or nullptr. Owned by the set.
  const Projection* Find(std::string_view name) const;
  const std::vector<std::unique_ptr<Projection>>& all() const { return projections_; }

 private:
  std::vector<std::unique_ptr<Projection>> projections_;  // sorted by name
  uint64_t sequence_ = 0;
};

}  // namespace las::projections
