// The call ledger reducer: what happened to each tool call.
//
// A call is "requested" from its ToolCallRequested until a ToolCallCompleted names it;
// after a restart a call still "requested" is uncertain: Las never retries it. A
// ToolCallDenied records a call that never reached a child. Pure: same events, same state.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "log/envelope.h"

namespace las::reducers {

struct CallRecord {
  std::string surface;
  std::string tool;
  std::string agent_id;
  std::string session_id;
  // "requested" (in flight, or uncertain after a crash), "denied", or the completion's
  // outcome: "ok", "tool_error", "failed", "timed_out", "refused".
  std::string status;
  std::string reason;  // denial reason or completion error code
  uint64_t requested_sequence = 0;
  uint64_t finished_sequence = 0;
  int64_t duration_micros = 0;
};

struct CallLedger {
  std::unordered_map<std::string, CallRecord> calls;  // by call_id
  uint64_t requested = 0;
  uint64_t completed = 0;
  uint64_t denied = 0;
};

void Apply(CallLedger& ledger, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
