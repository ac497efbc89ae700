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
// Memory holds each key's current version whole and, for every version, only the sequence
// and chain hash of its StateWritten event (40 bytes): a reader of an older version
// (history) reads that event back from the log for its author, time, reducer and value
// (tools/coordination.h, StateVersionAt), and refuses it unless its hash is the one kept.
// So memory grows by a fixed amount per write, not by what was written (docs/STATE.md).
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

// One version of a key, whole: the current one in memory, an older one as read back from
// its StateWritten event.
struct StateVersion {
  uint64_t version = 0;
  uint64_t sequence = 0;      // the StateWritten event
  int64_t time_micros = 0;    // its envelope time
  std::string author_agent_id;
  std::string reducer;        // las.std name
  std::string value;          // canonical JSON text
  std::string value_sha256;   // as recorded (hex)
};

struct StateKey {
  StateVersion current;             // the newest version
  std::vector<uint64_t> sequences;  // sequences[v - 1]: the StateWritten of version v
  std::vector<log::Hash> hashes;    // hashes[v - 1]: that event's chain hash
};

using KeySpace = std::map<std::string, StateKey, std::less<>>;

// What one key costs the agent that wrote its current version: the key's bytes, the value's,
// and a fixed share for the bookkeeping around them, so that many tiny keys count too.
inline constexpr uint64_t kStateKeyOverheadBytes = 128;
inline uint64_t HeldBytesOf(std::string_view key, std::string_view value) {
  return key.size() + value.size() + kStateKeyOverheadBytes;
}

struct StateStore {
  std::map<std::string, KeySpace, std::less<>> private_by_agent;
  KeySpace blackboard;
  uint64_t skipped = 0;  // StateWritten events whose version did not follow
  // Per agent, HeldBytesOf every key (private or blackboard) whose current version it
  // wrote; agents holding nothing are absent. Derived from the keys (RecountHeldBytes), so
  // neither saved in snapshots nor part of the digest.
  std::map<std::string, uint64_t, std::less<>> held_bytes;
};

void Apply(StateStore& store, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event);

// Recomputes store.held_bytes from the keys (after a snapshot is restored).
void RecountHeldBytes(StateStore& store);
// What `agent_id` holds now (0 when nothing).
uint64_t HeldBytes(const StateStore& store, std::string_view agent_id);

// Sets `into` to the version that `event`, a StateWritten at `sequence`, makes (reusing
// `into`'s storage). The caller checked the payload's kind.
void ReadVersion(uint64_t sequence, const fb::Envelope& event, StateVersion& into);

// The key space: the blackboard, or `agent_id`'s private state. nullptr when that agent
// has none yet.
const KeySpace* SpaceOf(const StateStore& store, bool blackboard, std::string_view agent_id);
// The key's versions, or nullptr if never written.
const StateKey* FindKey(const StateStore& store, bool blackboard, std::string_view agent_id,
                        std::string_view key);

// Where one version's StateWritten is in the log, and the chain hash it had when folded.
struct VersionAt {
  uint64_t version = 0;
  uint64_t sequence = 0;
  log::Hash hash{};
};

// Versions of one key after `after_version`, at most `limit` (ascending), and whether
// more follow.
struct HistoryPage {
  std::vector<VersionAt> versions;
  bool more = false;
};
HistoryPage History(const StateKey& key, uint64_t after_version, size_t limit);

}  // namespace las::reducers
