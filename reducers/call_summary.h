// The call summary reducer: what a long-running server keeps of the call ledger — the
// counts, the calls still open, and a running digest of every ledger update — so that its
// memory and restart time do not grow with the number of calls ever made
// (docs/PERFORMANCE.md, issue 5). The per-call history is reducers/call_ledger.h, which
// `las inspect calls` and `las replay --surface` fold from the log when asked.
//
// A call is "open" from its ToolCallRequested until a ToolCallCompleted (any outcome,
// including a timeout) or a ToolCallDenied names it; after a crash an open call stays open:
// Las never retries it (it is "uncertain" in the ledger).
//
// `ledger_hash` commits to the whole ledger (log/FORMAT.md §Call ledger digest): starting
// from 32 zero bytes, every ToolCallRequested/Completed/Denied at sequence n folds
//   ledger_hash = BLAKE2b-256("las.calls.ledger.v1" || 0x00 || ledger_hash || update(n))
// where update(n) is the event's ledger-relevant fields (EncodeLedgerUpdate): every field of
// reducers/call_ledger.h's records but `detail` (the operator's words, which the chain
// covers), so equal hashes mean ledgers equal in all else; computing it costs O(1) per
// event and needs no per-call state.
//
// Pure: same events, same state. Not thread-safe (plain data).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "log/chain_hash.h"
#include "log/envelope.h"
#include "reducers/call_ledger.h"

namespace las::reducers {

struct OpenCall {
  std::string surface;
  std::string tool;
  std::string agent_id;
  std::string session_id;
  uint64_t requested_sequence = 0;
};

struct CallSummary {
  std::unordered_map<std::string, OpenCall, CallIdHash, std::equal_to<>> open;  // by call_id
  uint64_t requested = 0;
  uint64_t completed = 0;
  uint64_t denied = 0;
  log::Hash ledger_hash{};  // zeros before the first call event
};

// The domain label of ledger_hash, with its separating NUL.
inline constexpr std::string_view kLedgerHashLabel{"las.calls.ledger.v1\0", 20};

// update(n) for a call event, appended to `out`; false (nothing appended) for other kinds.
// Layout (FORMAT.md): kind u8 (1 requested, 2 completed, 3 denied), sequence u64 BE, then
// u32-BE-length-prefixed strings — call_id, and for requested: surface, tool, agent_id,
// session_id; completed: status (the ledger's outcome name), error_code, then
// duration_micros i64 BE; denied: surface, tool, agent_id, session_id, reason.
bool EncodeLedgerUpdate(uint64_t sequence, const fb::Envelope& event, std::string& out);

void Apply(CallSummary& summary, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
