// HeldAnswers (tools/held_answers.h): per session bytes of answers held for the log, their
// waiters, and their share of a daemon's AnswerBudget.
#include "tools/held_answers.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>

#include "tools/answer_budget.h"

namespace las::tools {
namespace {

struct Harness {
  std::deque<std::function<void()>> posted;
  HeldAnswers held{[this](std::function<void()> task) { posted.push_back(std::move(task)); }};
  void RunPosted() {
    while (!posted.empty()) {
      auto task = std::move(posted.front());
      posted.pop_front();
      task();
    }
  }
};

TEST(HeldAnswersTest, AWaiterRunsAtOnceWhenNothingIsHeldElseAtTheNextRelease) {
  Harness h;
  int runs = 0;
  h.held.WhenReleased("s", [&] { ++runs; });
  EXPECT_EQ(runs, 1);
  h.held.Hold("s", 100);
  h.held.Hold("s", 50);
  h.held.Hold("other", 7);
  EXPECT_EQ(h.held.Bytes("s"), 150u);
  h.held.WhenReleased("s", [&] { ++runs; });
  h.held.Release("other", 7);
  h.RunPosted();
  EXPECT_EQ(runs, 1) << "another session's release";
  h.held.Release("s", 100);
  EXPECT_EQ(runs, 1) << "posted, never inside Release";
  h.RunPosted();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(h.held.Bytes("s"), 50u);
  h.held.Release("s", 50);
  EXPECT_EQ(h.held.Bytes("s"), 0u);
}

// Probe CV1: held answers went around the daemon's budget, so each connection held 8 MB
// whatever the budget said. They count in it now, from the moment it is shared.
TEST(HeldAnswersTest, HeldBytesCountInASharedBudget) {
  AnswerBudget budget(/*total_bytes=*/100, /*floor_bytes=*/10);
  {
    Harness h;
    h.held.Hold("s", 30);
    h.held.ShareBudget(&budget);
    EXPECT_EQ(budget.used(), 30u);
    h.held.Hold("t", 80);
    EXPECT_EQ(budget.used(), 110u);
    EXPECT_TRUE(budget.Holds(30)) << "past the budget, above the floor";
    h.held.Release("t", 80);
    EXPECT_EQ(budget.used(), 30u);
  }
  EXPECT_EQ(budget.used(), 0u) << "gone: its share given back";
}

// After a burst of held answers is gone the daemon hands the freed memory back (probe JI2:
// an idle daemon kept 150 MB): once per burst of kReturnMemoryAfterBytes or more, once what
// is held fell to an eighth of its peak — not only when nothing is (JK2).
TEST(HeldAnswersTest, ABudgetSaysOnceWhenABurstHasDrained) {
  constexpr size_t kBurst = AnswerBudget::kReturnMemoryAfterBytes;
  AnswerBudget budget(/*total_bytes=*/2 * kBurst, /*floor_bytes=*/10);
  budget.Update(0, kBurst - 1);
  budget.Update(kBurst - 1, 0);
  EXPECT_FALSE(budget.DrainedAfterAPeak()) << "a small burst";
  budget.Update(0, kBurst);
  EXPECT_FALSE(budget.DrainedAfterAPeak()) << "still held";
  budget.Update(kBurst, kBurst / 4);
  EXPECT_FALSE(budget.DrainedAfterAPeak()) << "a quarter still held";
  budget.Update(kBurst / 4, kBurst / 8);
  EXPECT_TRUE(budget.DrainedAfterAPeak()) << "others still hold some";
  EXPECT_FALSE(budget.DrainedAfterAPeak()) << "once per burst";
}

}  // namespace
}  // namespace las::tools
