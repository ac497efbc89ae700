// LineWriteQueue (tools/line_write_queue.h): ordering, one write per burst, the drained
// callback, flow control and a peer that goes away. The stream is a recording stand-in whose
// writes complete when the test says so: that is what lets a test hold a write in flight.
// The same queue against real pipes and a real `las serve` is tests/e2e/backpressure_test.cc.
#include "tools/line_write_queue.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "tools/answer_budget.h"

namespace las::tools {
namespace {

struct Harness {
  std::vector<std::string> written;                // every write started, in order
  std::deque<std::function<void(bool)>> in_flight;  // their completions, not yet run
  std::deque<std::function<void()>> posted;
  LineWriteQueue queue{
      [this](const std::string& data, std::function<void(bool)> done) {
        written.push_back(data);
        in_flight.push_back(std::move(done));
      },
      [this](std::function<void()> task) { posted.push_back(std::move(task)); }};

  void Complete(bool ok = true) {
    auto done = std::move(in_flight.front());
    in_flight.pop_front();
    done(ok);
  }
  void RunPosted() {
    while (!posted.empty()) {
      auto task = std::move(posted.front());
      posted.pop_front();
      task();
    }
  }
};

// A child's result passed on as written may hold a CR between tokens or U+2028 in a string:
// each line goes out as one line for every reader (probe JO1; transport/line_breaks.h).
TEST(LineWriteQueueTest, ALineGoesOutAsOneLineForEveryReader) {
  Harness h;
  h.queue.Write("{\"result\":\r{\"text\":\"a\u2028b\"}}");
  ASSERT_EQ(h.written.size(), 1u);
  EXPECT_EQ(h.written[0], "{\"result\": {\"text\":\"a\\u2028b\"}}\n");
}

TEST(LineWriteQueueTest, LinesQueuedDuringAWriteGoOutTogetherInOrder) {
  Harness h;
  h.queue.Write("a");
  h.queue.Write("b");
  h.queue.Write("c");
  ASSERT_EQ(h.written.size(), 1u);
  EXPECT_EQ(h.written[0], "a\n");
  EXPECT_EQ(h.queue.queued_bytes(), 6u);
  h.Complete();
  ASSERT_EQ(h.written.size(), 2u);
  EXPECT_EQ(h.written[1], "b\nc\n") << "one write for everything queued meanwhile";
  bool drained = false;
  h.queue.WhenDrained([&] { drained = true; });
  h.RunPosted();
  EXPECT_FALSE(drained) << "a write is still in flight";
  h.Complete();
  h.RunPosted();
  EXPECT_TRUE(drained);
  EXPECT_EQ(h.queue.queued_bytes(), 0u);
}

// A burst of answers is written in one buffer; once written, the buffer is given back: an
// idle peer kept its largest burst's memory until it disconnected (probe JZ1).
TEST(LineWriteQueueTest, ABurstsBufferIsGivenBackOnceWritten) {
  Harness h;
  const std::string answer(130 * 1024, 'a');
  h.queue.Write("first");
  for (int i = 0; i < 48; ++i) h.queue.Write(answer);
  EXPECT_GE(h.queue.held_bytes(), 48 * answer.size());
  h.Complete();
  ASSERT_EQ(h.written.size(), 2u);
  EXPECT_EQ(h.written[1].size(), 48 * (answer.size() + 1)) << "the burst in one write";
  EXPECT_GE(h.queue.held_bytes(), 48 * answer.size()) << "held while it is written";
  h.Complete();
  EXPECT_EQ(h.queue.queued_bytes(), 0u);
  EXPECT_LT(h.queue.held_bytes(), 64u) << "given back once written";
}

TEST(LineWriteQueueTest, ReadingPausesAboveTheMarkAndResumesBelowTheOther) {
  Harness h;
  const std::string big(kPauseReadingAboveBytes / 4, 'x');
  for (int i = 0; i < 6; ++i) h.queue.Write(big);  // 1.5x the pause mark unwritten
  ASSERT_GT(h.queue.queued_bytes(), kPauseReadingAboveBytes);
  int reads = 0;
  h.queue.ReadWhenAllowed([&] { ++reads; });
  h.RunPosted();
  EXPECT_EQ(reads, 0) << "too much unwritten: the next read waits";
  h.Complete();  // the first line; the other five are now one write
  h.RunPosted();
  EXPECT_GE(h.queue.queued_bytes(), kResumeReadingBelowBytes);
  EXPECT_EQ(reads, 0) << "still above the resume mark";
  h.Complete();
  h.RunPosted();
  EXPECT_EQ(reads, 1) << "everything written: reading resumes";

  h.queue.ReadWhenAllowed([&] { ++reads; });
  EXPECT_EQ(reads, 2) << "with nothing queued a read goes ahead at once";
}

TEST(LineWriteQueueTest, APeerThatIsGoneDropsTheRestAndReleasesWaiters) {
  Harness h;
  const std::string big(kPauseReadingAboveBytes, 'x');
  h.queue.Write(big);
  h.queue.Write(big);
  int reads = 0;
  int lost = 0;
  bool drained = false;
  h.queue.ReadWhenAllowed([&] { ++reads; });
  h.queue.WhenDrained([&] { drained = true; });
  h.queue.WhenBroken([&] { ++lost; });
  h.Complete(/*ok=*/true);
  h.RunPosted();
  EXPECT_EQ(lost, 0) << "a write that succeeded loses nothing";
  h.Complete(/*ok=*/false);
  h.RunPosted();
  EXPECT_EQ(lost, 1);
  h.queue.WhenBroken([&] { lost += 10; });
  EXPECT_EQ(lost, 1) << "posted, never run inside the call";
  h.RunPosted();
  EXPECT_EQ(lost, 11) << "a late registration still learns of the loss";
  EXPECT_TRUE(h.queue.broken());
  EXPECT_EQ(h.queue.queued_bytes(), 0u);
  EXPECT_EQ(reads, 1) << "the read goes ahead and will see the end of the input";
  EXPECT_TRUE(drained);
  h.queue.Write("late");
  EXPECT_EQ(h.written.size(), 2u) << "nothing more is written to a peer that is gone";
}

// A second signal: a peer that reads nothing must not keep the owner waiting. What is
// unwritten (in flight included) is dropped, the drained callbacks run without waiting for
// the stuck write, held reads go ahead, and the loss is reported.
TEST(LineWriteQueueTest, AbandonDropsWhatIsUnwrittenAndStopsWaitingForTheWriteInFlight) {
  Harness h;
  const std::string big(kPauseReadingAboveBytes, 'x');
  h.queue.Write(big);
  h.queue.Write(big);
  int reads = 0;
  int lost = 0;
  bool drained = false;
  h.queue.ReadWhenAllowed([&] { ++reads; });
  h.queue.WhenDrained([&] { drained = true; });
  h.queue.WhenBroken([&] { ++lost; });
  h.queue.Abandon();
  h.RunPosted();
  EXPECT_TRUE(drained) << "the write in flight is not waited for";
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(lost, 1) << "answers were dropped";
  EXPECT_TRUE(h.queue.broken());
  EXPECT_FALSE(h.queue.Congested());
  bool again = false;
  h.queue.WhenDrained([&] { again = true; });
  h.RunPosted();
  EXPECT_TRUE(again);
  h.Complete(/*ok=*/true);  // the stuck write ends after all: nothing more goes out
  h.queue.Write("late");
  EXPECT_EQ(h.written.size(), 1u);
  EXPECT_EQ(h.queue.queued_bytes(), 0u);
}

// Abandoned with nothing unwritten, nothing was lost — until a later answer is dropped.
TEST(LineWriteQueueTest, AbandonLosesNothingUntilALineIsDropped) {
  Harness h;
  h.queue.Write("a");
  h.Complete();
  int lost = 0;
  h.queue.WhenBroken([&] { ++lost; });
  h.queue.Abandon();
  h.RunPosted();
  EXPECT_FALSE(h.queue.broken());
  EXPECT_EQ(lost, 0);
  h.queue.Write("late");
  h.RunPosted();
  EXPECT_EQ(h.written.size(), 1u) << "nothing is written after Abandon";
  EXPECT_TRUE(h.queue.broken()) << "a dropped answer is a lost answer";
  EXPECT_EQ(lost, 1);
}

// Probe CS3: a daemon's connections that all read nothing each held up to the pause mark
// (forty: 606 MB). Sharing an AnswerBudget, a queue holding more than the floor is congested
// while all of them together are past the budget; one holding less goes on; each resumes
// once its own answers are written down to the floor.
TEST(LineWriteQueueTest, QueuesSharingABudgetPauseTogetherPastItAndKeepAFloorEach) {
  AnswerBudget budget(/*total_bytes=*/100, /*floor_bytes=*/10);
  Harness a;
  Harness b;
  Harness c;
  for (Harness* h : {&a, &b, &c}) h->queue.ShareBudget(&budget);
  a.queue.Write(std::string(79, 'a'));  // 80 bytes with its newline
  EXPECT_FALSE(a.queue.Congested()) << "within the budget";
  b.queue.Write(std::string(29, 'b'));  // 30: 110 in all
  EXPECT_EQ(budget.used(), 110u);
  EXPECT_TRUE(a.queue.Congested());
  EXPECT_TRUE(b.queue.Congested());
  c.queue.Write("c");  // 2 bytes: within its floor
  EXPECT_FALSE(c.queue.Congested()) << "a peer that reads is served while others do not";
  bool b_reads = false;
  b.queue.ReadWhenAllowed([&] { b_reads = true; });
  a.Complete();  // a's peer reads: 30 + 2 left in all
  a.RunPosted();
  EXPECT_FALSE(a.queue.Congested());
  EXPECT_FALSE(b.queue.Congested()) << "the budget has room again";
  b.Complete();
  b.RunPosted();
  EXPECT_TRUE(b_reads) << "resumed once its own write was done";
  EXPECT_EQ(budget.used(), 2u);
  c.Complete();
  EXPECT_EQ(budget.used(), 0u);
}

// A queue dropped with answers unwritten gives its share back.
TEST(LineWriteQueueTest, AQueueLeavingItsBudgetGivesItsShareBack) {
  AnswerBudget budget(100, 10);
  {
    Harness h;
    h.queue.ShareBudget(&budget);
    h.queue.Write("unwritten");
    EXPECT_EQ(budget.used(), 10u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace las::tools
