// The handles reducer: immutable large values (tool results, state values, message
// bodies) kept for one owning agent, folded from HandleCreated.
//
// A handle id names one (owner, content) pair (tools/handle_refs.h derives it), so a
// second HandleCreated with an id already known carries the same content and is skipped.
// Only the owner may read a handle; the reducer records the owner, the query enforces it.
//
// A record keeps the handle's metadata and the sequence and chain hash of its HandleCreated
// event, not its content: the content stays in the log, where a reader fetches it
// (Coordination::HandleContent), so memory grows with the number of handles, not with
// their bytes (docs/STATE.md). Pure; not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "log/envelope.h"

namespace las::reducers {

struct HandleRecord {
  std::string handle_id;
  std::string owner_agent_id;
  std::string media_type;
  uint64_t size = 0;
  std::string content_sha256;  // hex, as recorded
  uint64_t sequence = 0;       // the HandleCreated event, which carries the content
  log::Hash event_hash{};      // that event's chain hash, which its read-back must find
  int64_t created_micros = 0;
};

struct Handles {
  std::map<std::string, HandleRecord, std::less<>> by_id;
  uint64_t skipped = 0;  // repeated ids, or size not matching the content
};

void Apply(Handles& handles, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event);

// The handle if it exists and `agent_id` owns it; nullptr otherwise (the caller cannot
// tell "not yours" from "no such handle").
const HandleRecord* FindOwnedHandle(const Handles& handles, std::string_view handle_id,
                                    std::string_view agent_id);

}  // namespace las::reducers
