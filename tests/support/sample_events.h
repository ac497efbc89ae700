// Drafts of every event kind with distinctive field values, for round-trip tests,
// benchmarks and demos.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "log/event.h"
#include "log/event_log.h"

namespace las::testing {

// One draft per kind in the schema, in union order, all fields set (index i makes values
// unique). Adding a kind to events.fbs without adding it here fails the round-trip test.
std::vector<log::EventDraft> OneOfEveryKind(int index = 0);

// One plausible MCP session: SessionOpened, three calls (weles navigate, stado quota, lem
// search) each requested and completed, a denied finance_execute, SessionClosed — nine
// events by agent "demo-agent" in session `session_id`.
std::vector<log::EventDraft> SampleSession(const std::string& session_id);

// A ~250-byte ToolCallRequested / ToolCallCompleted pair member: the bulk of a real log.
log::EventDraft SampleToolCallRequested(uint64_t n);
log::EventDraft SampleToolCallCompleted(uint64_t n);

// The i-th event of a benchmark log: ToolCallRequested / ToolCallCompleted alternating, as
// pairs sharing a call id.
log::EventDraft SampleCallEvent(uint64_t i);

// Appends `n` such events (SampleCallEvent(0..n-1)) in batches of 256.
Status AppendSampleCalls(log::EventLog& log, uint64_t n,
                         log::Durability durability = log::Durability::kSynced);

}  // namespace las::testing
