// Replay: verify a log's chain from its first event, fold every event into a fresh
// ProjectionSet, and hand the events that pass a filter to a sink — the engine of
// `las replay`, also used by tests to compare a rebuilt state with a live one.
//
// Verification and folding always cover the whole log; the filter only selects which
// events reach the sink. Replay stops at the first broken link: the outcome carries the
// corruption status and the first bad sequence (the sink has seen only events before it).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "log/event_cursor.h"
#include "projections/projection_set.h"

namespace las::projections {

struct ReplayFilter {
  uint64_t from = 1;
  uint64_t to = std::numeric_limits<uint64_t>::max();
  // Names as in events.fbs, or "Unknown" for kinds this build does not know; empty = all.
  std::vector<std::string> kinds;
  std::optional<std::string> agent;
  std::optional<std::string> surface;  // tool calls match through their call's surface
};

// kInvalidArgument when a kind name is not in the schema (the message lists them), when
// `from` is after `to`, or for an empty surface name (an empty agent selects the
// operator's events).
Status ValidateFilter(const ReplayFilter& filter);

struct ReplayOutcome {
  Status status;                              // ok, kCorruption, kIo
  std::optional<uint64_t> first_bad_sequence; // with kCorruption
  uint64_t verified = 0;                      // events verified and folded
  uint64_t selected = 0;                      // events handed to the sink
  log::Head head;
};

struct ReplayCallbacks {
  // Checks every verified event beyond the chain (e.g. re-verifies recorded release
  // signatures). A non-ok status stops the replay as kCorruption at that event.
  std::function<Status(const log::StoredEvent&)> audit;
  // Receives each selected event. A non-ok status (its reader went away) stops the replay
  // with that status and no first bad sequence.
  std::function<Status(const log::StoredEvent&)> on_selected;
  // Called every `progress_every` events with (done, total); may be empty.
  std::function<void(uint64_t, uint64_t)> on_progress;
  uint64_t progress_every = 65536;
};

// `cursor` must start at sequence 1. `projections` should be fresh.
ReplayOutcome Replay(log::EventCursor& cursor, const ReplayFilter& filter,
                     const ReplayCallbacks& callbacks, ProjectionSet& projections);

}  // namespace las::projections
