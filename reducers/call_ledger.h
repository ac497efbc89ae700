// The call ledger reducer: what happened to each tool call.
//
// A call is "uncertain" from its ToolCallRequested until a ToolCallCompleted names it;
// after a crash such a call stays uncertain: Las never retries it. A
// ToolCallDenied records a call that never reached a child. Pure: same events, same state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "log/envelope.h"

namespace las::reducers {

struct CallRecord {
  std::string surface;
  std::string tool;
  std::string agent_id;
  std::string session_id;
  // "uncertain" (requested with no completion: in flight, or interrupted by a crash —
  // Las never retries it — or completed TimedOut: a timeout, a cancellation, the child's
  // death or its end while it had the call, so that it may have acted),
  // "denied", or the completion's outcome: "ok", "tool_error", "failed", "refused".
  std::string status;
  std::string reason;  // denial reason or completion error code
  std::string detail;  // for the operator: a denial's or a completion's (their `detail`)
  uint64_t requested_sequence = 0;
  uint64_t finished_sequence = 0;
  int64_t duration_micros = 0;
};

// Lets the ledger be searched by std::string_view (a call id inside an event) without
// making a std::string first.
struct CallIdHash {
  using is_transparent = void;
  size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
};

struct CallLedger {
  std::unordered_map<std::string, CallRecord, CallIdHash, std::equal_to<>> calls;  // by call_id
  uint64_t requested = 0;
  uint64_t completed = 0;
  uint64_t denied = 0;
};

void Apply(CallLedger& ledger, uint64_t sequence, const fb::Envelope& event);

// The ledger's status for a completion's outcome ("ok", "tool_error", "failed",
// "refused"; a timeout is "uncertain": the child may still act on it).
std::string_view OutcomeName(fb::CallOutcome outcome);

}  // namespace las::reducers
