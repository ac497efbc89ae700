// ArgumentCheckQueue (tools/argument_check_queue.h): one check at a time, sessions served
// in turn, a bound per session, withdrawn checks never run. The runner and the loop are
// held in vectors here, so each step is the test's to take.
#include "tools/argument_check_queue.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace las::tools {
namespace {

class ArgumentCheckQueueTest : public ::testing::Test {
 protected:
  ArgumentCheckQueue queue_{[this](std::function<void()> job) { handed_.push_back(std::move(job)); },
                            [this](std::function<void()> back) { posted_.push_back(std::move(back)); },
                            /*per_session=*/3, /*in_all=*/5};

  ArgumentCheckQueue::Id Add(const std::string& session, const std::string& name) {
    return queue_.Add(session, {[this, name] { ran_.push_back(name); },
                                [this, name] { done_.push_back(name); }});
  }
  // Runs the job handed to the runner (one at most), then its return to the loop.
  void Step() {
    ASSERT_EQ(handed_.size(), 1u) << "exactly one check is handed over at a time";
    auto job = std::move(handed_.front());
    handed_.clear();
    job();
    ASSERT_EQ(posted_.size(), 1u);
    auto back = std::move(posted_.front());
    posted_.clear();
    back();
  }

  std::vector<std::function<void()>> handed_;
  std::vector<std::function<void()>> posted_;
  std::vector<std::string> ran_;
  std::vector<std::string> done_;
};

TEST_F(ArgumentCheckQueueTest, SessionsAreServedInTurnOneCheckAtATime) {
  Add("a", "a1");
  Add("a", "a2");
  Add("a", "a3");
  Add("b", "b1");
  Add("c", "c1");
  Add("c", "c2");
  EXPECT_EQ(handed_.size(), 1u);
  EXPECT_EQ(queue_.waiting(), 5u);
  for (int i = 0; i < 6; ++i) Step();
  EXPECT_EQ(ran_, (std::vector<std::string>{"a1", "b1", "c1", "a2", "c2", "a3"}));
  EXPECT_EQ(done_, ran_);
  EXPECT_TRUE(handed_.empty());
  EXPECT_EQ(queue_.running(), 0u);
}

TEST_F(ArgumentCheckQueueTest, ASessionWithItsBoundOfChecksWaitingGetsNoMore) {
  EXPECT_NE(Add("a", "running"), 0u);
  EXPECT_NE(Add("a", "w1"), 0u);
  EXPECT_NE(Add("a", "w2"), 0u);
  EXPECT_NE(Add("a", "w3"), 0u);
  EXPECT_EQ(Add("a", "over"), 0u) << "three waiting already";
  EXPECT_NE(Add("b", "other"), 0u) << "the bound is per session";
  Step();  // b's turn comes next: a still has three waiting
  EXPECT_EQ(Add("a", "over"), 0u);
  Step();  // a's first waiting one runs
  EXPECT_NE(Add("a", "again"), 0u) << "one left the queue";
}

TEST_F(ArgumentCheckQueueTest, NoMoreThanTheBoundInAllWait) {
  Add("a", "running");
  for (const char* session : {"a", "b", "c", "d", "e"}) {
    EXPECT_NE(Add(session, std::string(session) + " waits"), 0u) << session;
  }
  EXPECT_EQ(queue_.waiting(), 5u);
  EXPECT_EQ(Add("f", "over"), 0u) << "five waiting in all";
  Step();
  EXPECT_NE(Add("f", "f waits"), 0u) << "one left the queue";
}

// A large result's reading (Check::bounded false) waits its turn but neither counts toward
// the bounds nor is refused by them (probe BJ2).
TEST_F(ArgumentCheckQueueTest, AnUnboundedCheckWaitsItsTurnOutsideTheBounds) {
  auto add_unbounded = [this](const std::string& session, const std::string& name) {
    ArgumentCheckQueue::Check check{[this, name] { ran_.push_back(name); },
                                    [this, name] { done_.push_back(name); }};
    check.bounded = false;
    return queue_.Add(session, std::move(check));
  };
  EXPECT_NE(Add("a", "running"), 0u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_NE(add_unbounded("a", "result" + std::to_string(i)), 0u) << "never refused";
  }
  EXPECT_NE(Add("a", "w1"), 0u) << "the results count toward no bound";
  EXPECT_NE(Add("a", "w2"), 0u);
  EXPECT_NE(Add("a", "w3"), 0u);
  EXPECT_EQ(Add("a", "over"), 0u) << "three bounded waiting";
  const auto withdrawn = add_unbounded("b", "withdrawn");
  EXPECT_TRUE(queue_.Withdraw(withdrawn));
  EXPECT_NE(Add("b", "b1"), 0u);
  EXPECT_NE(Add("c", "c1"), 0u);
  EXPECT_EQ(Add("d", "over"), 0u) << "five bounded waiting in all: w1-w3, b1, c1";
  EXPECT_EQ(queue_.waiting(), 11u);
  for (int i = 0; i < 12; ++i) Step();
  EXPECT_EQ(ran_, (std::vector<std::string>{"running", "b1", "c1", "result0", "result1",
                                            "result2", "result3", "result4", "result5", "w1",
                                            "w2", "w3"}));
  EXPECT_EQ(done_, ran_);
}

TEST_F(ArgumentCheckQueueTest, AWithdrawnCheckNeverRunsAndARunningOneCannotBeWithdrawn) {
  const auto first = Add("a", "first");
  const auto second = Add("a", "second");
  const auto third = Add("b", "third");
  EXPECT_EQ(queue_.running(), first);
  EXPECT_FALSE(queue_.Withdraw(first)) << "already handed to the runner";
  EXPECT_TRUE(queue_.Withdraw(second));
  EXPECT_FALSE(queue_.Withdraw(second)) << "once";
  EXPECT_EQ(queue_.waiting(), 1u);
  Step();
  Step();
  EXPECT_EQ(ran_, (std::vector<std::string>{"first", "third"}));
  EXPECT_EQ(done_, ran_);
  EXPECT_FALSE(queue_.Withdraw(third)) << "over";
}

TEST(ArgumentCheckQueueLifetimeTest, AVerdictThatComesBackAfterTheQueueWentIsDropped) {
  std::vector<std::function<void()>> handed;
  std::vector<std::function<void()>> posted;
  bool done = false;
  {
    ArgumentCheckQueue queue([&](std::function<void()> job) { handed.push_back(std::move(job)); },
                             [&](std::function<void()> back) { posted.push_back(std::move(back)); },
                             1, 1);
    queue.Add("a", {[] {}, [&done] { done = true; }});
  }
  ASSERT_EQ(handed.size(), 1u);
  handed.front()();
  ASSERT_EQ(posted.size(), 1u);
  posted.front()();
  EXPECT_FALSE(done);
}

}  // namespace
}  // namespace las::tools
