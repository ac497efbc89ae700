// The state reducer: private state (one key space per agent) and the shared blackboard,
// folded from StateWritten events.
//
// Every key has versions 1, 2, 3, ... Each StateWritten carries the resulting value
// (canonical JSON text, reducers/json_value.h), the version it makes and the reducer that
// produced it, so the fold never re-runs a reducer. An event whose version is not exactly
// the key's current version + 1 cannot have been decided by Las (the gateway decides
// every write against the newest state) and is skipped and counted, never applied: the
// fold stays deterministic even over a hand-made log.
//
// Every version is kept (history queries page through them), but only the current one
// keeps its value: when a newer version arrives the older one's value is dropped (its
// value_sha256 and sequence stay), and a reader of an older version fetches the value
// from that StateWritten event in the log (tools/coordination.h, StateValue). So memory
// holds one value per key plus metadata per version, not everything ever written
// (docs/STATE.md).
//
// Pure: no I/O, no clock; time comes from the event envelope. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "log/envelope.h"

namespace las::reducers {

struct StateVersion {
  uint64_t version = 0;
  uint64_t sequence = 0;      // the StateWritten event
  int64_t time_micros = 0;    // its envelope time
  std::string author_agent_id;
  std::string reducer;        // las.std name
  std::string value;          // canonical JSON text; empty (in the log) unless current
  std::string value_sha256;   // as recorded (hex)
};

// All versions of one key, ascending; back() is the current one. Never empty.
struct StateKey {
  std::vector<StateVersion> versions;
  const StateVersion& current() const { return versions.back(); }
};

using KeySpace = std::map<std::string, StateKey, std::less<>>;

struct StateStore {
  std::map<std::string, KeySpace, std::less<>> private_by_agent;
  KeySpace blackboard;
  uint64_t skipped = 0;  // StateWritten events whose version did not follow
};

void Apply(StateStore& store, uint64_t sequence, const fb::Envelope& event);

// The key space: the blackboard, or `agent_id`'s private state. nullptr when that agent
// has none yet.
const KeySpace* SpaceOf(const StateStore& store, bool blackboard, std::string_view agent_id);
// The key's versions, or nullptr if never written.
const StateKey* FindKey(const StateStore& store, bool blackboard, std::string_view agent_id,
                        std::string_view key);

// Versions of one key after `after_version`, at most `limit` (ascending), and whether
// more follow.
struct HistoryPage {
  std::vector<const StateVersion*> versions;
  bool more = false;
};
HistoryPage History(const StateKey& key, uint64_t after_version, size_t limit);

}  // namespace las::reducers
