// The sessions reducers (reducers/sessions.h): a server keeps the open sessions and a count
// of the closed ones (probe BK1: every closed session stayed in memory); the history that
// `las inspect sessions` folds keeps every session and how it ended.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/event_builder.h"
#include "reducers/sessions.h"
#include "tests/support/sample_events.h"

namespace las::reducers {
namespace {

std::vector<log::EventDraft> ThreeSessionsOneLeftOpen() {
  std::vector<log::EventDraft> drafts;
  for (const char* id : {"session-a", "session-b", "session-c"}) {
    for (auto& draft : testing::SampleSession(id)) drafts.push_back(std::move(draft));
  }
  drafts.pop_back();  // session-c's SessionClosed
  return drafts;
}

template <typename Fold>
void FoldInto(Fold& fold, const std::vector<log::EventDraft>& drafts) {
  uint64_t sequence = 0;
  for (const auto& draft : drafts) {
    Apply(fold, ++sequence, *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
}

TEST(SessionsReducer, AServerKeepsOnlyTheOpenSessionsAndCountsTheClosedOnes) {
  Sessions sessions;
  FoldInto(sessions, ThreeSessionsOneLeftOpen());
  EXPECT_EQ(sessions.closed, 2u);
  ASSERT_EQ(sessions.open.size(), 1u);
  const auto& [id, open] = *sessions.open.begin();
  EXPECT_EQ(id, "session-c");
  EXPECT_EQ(open.opened_sequence, 19u);
  EXPECT_FALSE(open.agent_id.empty());
  EXPECT_EQ(open.closed_sequence, 0u);
}

TEST(SessionsReducer, TheHistoryKeepsEverySessionAndHowItEnded) {
  SessionHistory history;
  FoldInto(history, ThreeSessionsOneLeftOpen());
  ASSERT_EQ(history.by_id.size(), 3u);
  EXPECT_EQ(history.by_id.at("session-a").opened_sequence, 1u);
  EXPECT_EQ(history.by_id.at("session-a").closed_sequence, 9u);
  EXPECT_FALSE(history.by_id.at("session-b").close_reason.empty());
  EXPECT_EQ(history.by_id.at("session-c").closed_sequence, 0u) << "still open";
}

}  // namespace
}  // namespace las::reducers
