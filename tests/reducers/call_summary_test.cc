// The call summary (reducers/call_summary.h): counts and open calls as the full ledger
// has them, and a running ledger hash that is a function of every call event's ledger
// fields — equal for equal histories, different when any ledger-visible field differs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/event_builder.h"
#include "reducers/call_ledger.h"
#include "reducers/call_summary.h"
#include "tests/support/sample_events.h"

namespace las::reducers {
namespace {

log::EventDraft Completed(uint64_t n, fb::CallOutcome outcome, int64_t micros = 180) {
  log::EventBuilder b;
  const std::string call = "call-" + std::to_string(n);
  auto payload =
      fb::CreateToolCallCompletedDirect(b.fbb(), call.c_str(), outcome, "{}", 2, false, micros, "");
  return b.Finish(payload, "agent-main", "session-0001");
}

log::EventDraft Denied(uint64_t n) {
  log::EventBuilder b;
  const std::string call = "call-" + std::to_string(n);
  auto payload = fb::CreateToolCallDeniedDirect(b.fbb(), call.c_str(), "weles", "echo", "no_grant");
  return b.Finish(payload, "agent-main", "session-0001");
}

CallSummary Fold(const std::vector<log::EventDraft>& drafts, CallLedger* ledger = nullptr) {
  CallSummary summary;
  uint64_t sequence = 0;
  for (const auto& draft : drafts) {
    const auto* envelope = flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data());
    Apply(summary, ++sequence, *envelope);
    if (ledger != nullptr) Apply(*ledger, sequence, *envelope);
  }
  return summary;
}

std::vector<log::EventDraft> History(fb::CallOutcome second_outcome) {
  std::vector<log::EventDraft> out;
  for (uint64_t n = 0; n < 4; ++n) out.push_back(testing::SampleToolCallRequested(n));
  out.push_back(Completed(0, fb::CallOutcome::Ok));
  out.push_back(Completed(1, second_outcome));
  out.push_back(Denied(2));
  out.push_back(Denied(9));  // never requested
  return out;
}

TEST(CallSummary, KeepsOnlyOpenCallsAndTheLedgersCounts) {
  CallLedger ledger;
  const CallSummary summary = Fold(History(fb::CallOutcome::TimedOut), &ledger);
  EXPECT_EQ(summary.requested, ledger.requested);
  EXPECT_EQ(summary.completed, ledger.completed);
  EXPECT_EQ(summary.denied, ledger.denied);
  EXPECT_EQ(ledger.calls.size(), 5u);  // the full ledger grows with history...
  ASSERT_EQ(summary.open.size(), 1u);  // ...the summary holds only call-3, never answered
  const OpenCall& open = summary.open.at("call-3");
  EXPECT_EQ(open.surface, "weles");
  EXPECT_EQ(open.tool, "echo");
  EXPECT_EQ(open.agent_id, "agent-main");
  EXPECT_EQ(open.session_id, "session-0001");
  EXPECT_EQ(open.requested_sequence, 4u);
  EXPECT_EQ(ledger.calls.at("call-3").status, "uncertain");
}

TEST(CallSummary, LedgerHashIsAFunctionOfTheCallEvents) {
  const CallSummary a = Fold(History(fb::CallOutcome::Ok));
  EXPECT_EQ(a.ledger_hash, Fold(History(fb::CallOutcome::Ok)).ledger_hash);
  EXPECT_NE(a.ledger_hash, log::Hash{});
  // Another outcome of one call: the same counts and open calls, another ledger.
  const CallSummary b = Fold(History(fb::CallOutcome::Failed));
  EXPECT_EQ(a.open.size(), b.open.size());
  EXPECT_EQ(a.completed, b.completed);
  EXPECT_NE(a.ledger_hash, b.ledger_hash);
  // Another duration of one call.
  auto history = History(fb::CallOutcome::Ok);
  history[4] = Completed(0, fb::CallOutcome::Ok, 181);
  EXPECT_NE(Fold(history).ledger_hash, a.ledger_hash);
  // Events that are not call events leave it alone.
  auto with_other = History(fb::CallOutcome::Ok);
  const CallSummary before = Fold(with_other);
  for (auto& draft : testing::OneOfEveryKind(0)) {
    const auto kind = flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data())->payload_type();
    if (kind != fb::EventPayload::ToolCallRequested && kind != fb::EventPayload::ToolCallCompleted &&
        kind != fb::EventPayload::ToolCallDenied) {
      with_other.push_back(std::move(draft));
    }
  }
  ASSERT_GT(with_other.size(), History(fb::CallOutcome::Ok).size() + 10);
  EXPECT_EQ(Fold(with_other).ledger_hash, before.ledger_hash);
}

}  // namespace
}  // namespace las::reducers
