// LiveProjections: the server's own copy of every projection, kept current with the log it
// writes. Queries (sources, grants, state, mailboxes, onboarding) read it; decisions that
// need the newest state call CatchUp() first.
//
// Start-up folds the whole log (snapshots: projections/ may shorten that); after that
// CatchUp() folds whatever the log holds beyond the last folded sequence, read back
// through a verifying cursor — so the live state is always exactly what `las replay`
// rebuilds from the same events.
//
// Threading: not thread-safe; use on the server's loop thread only.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "log/event_log.h"
#include "projections/projection_set.h"

namespace las::tools {

class LiveProjections {
 public:
  explicit LiveProjections(log::EventLog& log) : log_(log) {}

  // Folds every event after sequence() up to the log's current head. kCorruption or kIo
  // from the cursor (the state is then as of the last good event).
  Status CatchUp();

  const projections::ProjectionSet& set() const { return set_; }
  uint64_t sequence() const { return set_.sequence(); }
  // The named projection downcast to its type, or nullptr.
  template <typename T>
  const T* Get(std::string_view name) const {
    return dynamic_cast<const T*>(set_.Find(name));
  }

 private:
  log::EventLog& log_;
  projections::ProjectionSet set_;
};

}  // namespace las::tools
