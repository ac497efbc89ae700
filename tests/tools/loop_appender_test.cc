// LoopAppender (tools/loop_appender.h): group commit by loop turn on a real log.
#include "tools/loop_appender.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>
#include <vector>

#include "log/event_log.h"
#include "tests/support/held_syncs_log.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"
#include "tools/live_projections.h"

namespace las::tools {
namespace {

using log::AppendedRange;
using log::Durability;
using testing::SampleToolCallCompleted;
using testing::SampleToolCallRequested;
using testing::TempDir;

struct Fixture {
  TempDir tmp;
  boost::asio::io_context io;
  std::unique_ptr<log::EventLog> log;
  std::unique_ptr<LiveProjections> live;

  // `deferred_sync_micros` long: only the appender's own syncs make anything durable.
  Fixture() {
    auto opened = log::EventLog::Open(tmp.Sub("log"), {.deferred_sync_micros = 60'000'000});
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    log = std::move(*opened);
    live = std::make_unique<LiveProjections>(*log);
    EXPECT_TRUE(live->CatchUp().ok());
  }

  // Runs the loop until `done` or 10 s.
  template <typename Done>
  void RunUntil(Done done) {
    io.restart();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io.run_for(std::chrono::milliseconds(10));
      io.restart();
    }
  }
};

LoopAppender::Done Keep(std::optional<Result<AppendedRange>>& into) {
  return [&into](Result<AppendedRange> range) { into = std::move(range); };
}

TEST(LoopAppenderTest, TheAppendsOfOneTurnShareOneWriteAndOneSync) {
  Fixture f;
  LoopAppender appender(f.io, *f.log, f.live.get());
  std::optional<Result<AppendedRange>> a, b, c;
  appender.Append({SampleToolCallRequested(1)}, Durability::kDeferred, Keep(a));
  appender.Append({SampleToolCallRequested(2), SampleToolCallCompleted(2)}, Durability::kSynced,
                  Keep(b));
  appender.Append({SampleToolCallCompleted(1)}, Durability::kDeferred, Keep(c));
  EXPECT_EQ(f.log->head().sequence, 0u) << "nothing is written before the turn's flush";
  EXPECT_FALSE(a || b || c) << "done never runs inside Append()";

  f.RunUntil([&] { return a && b && c; });
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(a->ok() && b->ok() && c->ok());
  EXPECT_EQ((*a)->first, 1u);
  EXPECT_EQ((*a)->last, 1u);
  EXPECT_EQ((*b)->first, 2u);
  EXPECT_EQ((*b)->last, 3u);
  EXPECT_EQ((*c)->first, 4u);
  EXPECT_EQ((*c)->last, 4u);
  const log::LogStats stats = f.log->stats();
  EXPECT_EQ(stats.appends, 1u) << "one EventLog batch for the whole turn";
  EXPECT_EQ(stats.synced_groups, 1u) << "one fsync, made inline for a lone caller";
  EXPECT_EQ(stats.deferred_groups, 0u);
  EXPECT_TRUE(f.log->Verify().ok());
}

TEST(LoopAppenderTest, WithConcurrentCallsTheSyncIsMadeOffTheLoopAndStillAwaited) {
  Fixture f;
  LoopAppender appender(f.io, *f.log, f.live.get());
  appender.OpenCall();
  appender.OpenCall();
  std::optional<Result<AppendedRange>> synced, deferred;
  appender.Append({SampleToolCallRequested(1)}, Durability::kSynced, Keep(synced));
  appender.Append({SampleToolCallCompleted(7)}, Durability::kDeferred, Keep(deferred));
  f.RunUntil([&] { return synced.has_value(); });
  ASSERT_TRUE(synced && synced->ok());
  ASSERT_TRUE(deferred && deferred->ok());
  EXPECT_EQ((*synced)->first, 1u);
  EXPECT_EQ((*deferred)->first, 2u);
  const log::LogStats stats = f.log->stats();
  EXPECT_EQ(stats.deferred_groups, 1u) << "the loop wrote without fsync";
  EXPECT_EQ(stats.synced_groups, 1u) << "the log's thread synced before the answer";
  appender.CloseCall();
  appender.CloseCall();
}

TEST(LoopAppenderTest, TheLiveProjectionsHoldTheStoredEventsWithoutAReadBack) {
  Fixture f;
  LoopAppender appender(f.io, *f.log, f.live.get());
  std::optional<Result<AppendedRange>> done;
  appender.Append({SampleToolCallRequested(1), SampleToolCallCompleted(1)}, Durability::kSynced,
                  Keep(done));
  f.RunUntil([&] { return done.has_value(); });
  ASSERT_TRUE(done && done->ok());
  EXPECT_EQ(f.live->sequence(), 2u);

  // Another writer's event in between: the next flush catches up from the log instead.
  ASSERT_TRUE(f.log->Append({SampleToolCallRequested(2)}).ok());
  done.reset();
  appender.Append({SampleToolCallCompleted(2)}, Durability::kSynced, Keep(done));
  f.RunUntil([&] { return done.has_value(); });
  ASSERT_TRUE(done && done->ok());
  EXPECT_EQ(f.live->sequence(), 4u);

  LiveProjections fresh(*f.log);
  ASSERT_TRUE(fresh.CatchUp().ok());
  EXPECT_EQ(f.live->set().Digests(), fresh.set().Digests())
      << "folding the stored bytes gives what a fold of the log gives";
}

TEST(LoopAppenderTest, AnInvalidBatchFailsAloneAndTheOthersAreWritten) {
  Fixture f;
  LoopAppender appender(f.io, *f.log, f.live.get());
  std::optional<Result<AppendedRange>> bad, good, empty;
  appender.Append({log::EventDraft{{1, 2, 3, 4}}}, Durability::kSynced, Keep(bad));
  appender.Append({SampleToolCallRequested(1)}, Durability::kSynced, Keep(good));
  appender.Append({}, Durability::kSynced, Keep(empty));
  f.RunUntil([&] { return bad && good && empty; });
  ASSERT_TRUE(bad && good && empty);
  EXPECT_EQ(bad->status().code(), Code::kInvalidArgument);
  EXPECT_EQ(empty->status().code(), Code::kInvalidArgument);
  ASSERT_TRUE(good->ok()) << good->status().ToString();
  EXPECT_EQ((*good)->first, 1u);
  EXPECT_EQ(f.log->head().sequence, 1u);
  EXPECT_EQ(f.live->sequence(), 1u);
}

// A horizon taken while a batch is queued covers that batch: waited for before its flush
// is written and after, until its sync (probe CM1).
TEST(LoopAppenderTest, AHorizonCoversWhatIsQueuedUntilItIsOnDisk) {
  Fixture f;
  testing::HeldSyncsLog held(std::move(f.log));
  LoopAppender appender(f.io, held, nullptr);
  appender.SyncOffLoopAlways();
  EXPECT_EQ(appender.horizon().flush, 0u) << "nothing queued";

  std::optional<Result<AppendedRange>> appended;
  appender.Append({SampleToolCallRequested(1)}, Durability::kSynced, Keep(appended));
  const LoopAppender::Horizon queued = appender.horizon();
  EXPECT_EQ(queued.visible, 0u);
  EXPECT_NE(queued.flush, 0u);
  std::optional<Status> before_write, after_write;
  appender.AfterDurable(queued, [&](Status s) { before_write = s; });
  f.io.restart();
  f.io.poll();
  ASSERT_EQ(held.head().sequence, 1u) << "written";
  EXPECT_EQ(appender.horizon().flush, 0u);
  appender.AfterDurable(queued, [&](Status s) { after_write = s; });
  f.io.restart();
  f.io.poll();
  EXPECT_FALSE(before_write.has_value()) << "answered before the queued event was on disk";
  EXPECT_FALSE(after_write.has_value()) << "answered before the written event was on disk";
  EXPECT_FALSE(appended.has_value());

  held.Release();
  f.RunUntil([&] { return before_write && after_write && appended; });
  ASSERT_TRUE(before_write && after_write && appended);
  EXPECT_TRUE(before_write->ok());
  EXPECT_TRUE(after_write->ok());
  EXPECT_TRUE(appended->ok());
  std::optional<Status> durable_now;
  appender.AfterDurable(queued, [&](Status s) { durable_now = s; });
  EXPECT_TRUE(durable_now.has_value() && durable_now->ok()) << "on disk: at once";
}

// WriteQueued writes (and folds) what is queued at once, so that a write made next on the
// loop without the appender — an operator change — is logged after what was decided
// before it (probe DL1); the flush posted for that queue then finds nothing to write.
TEST(LoopAppenderTest, WriteQueuedWritesTheQueueNowAndThePostedFlushFindsNone) {
  Fixture f;
  LoopAppender appender(f.io, *f.log, f.live.get());
  std::optional<Result<AppendedRange>> a;
  appender.Append({SampleToolCallRequested(1)}, Durability::kDeferred, Keep(a));
  EXPECT_EQ(f.log->head().sequence, 0u) << "queued for the turn's flush";
  appender.WriteQueued();
  EXPECT_EQ(f.log->head().sequence, 1u);
  EXPECT_EQ(f.live->sequence(), 1u) << "folded";
  ASSERT_TRUE(a.has_value() && a->ok());
  auto direct = f.log->Append({SampleToolCallCompleted(1)}, Durability::kDeferred);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(direct->first, 2u) << "after what was decided before it";
  std::optional<Result<AppendedRange>> b;
  appender.Append({SampleToolCallRequested(2)}, Durability::kSynced, Keep(b));
  f.RunUntil([&] { return b.has_value(); });
  ASSERT_TRUE(b.has_value() && b->ok()) << (b ? b->status().ToString() : "unanswered");
  EXPECT_EQ((*b)->first, 3u);
  EXPECT_TRUE(appender.failure().ok()) << appender.failure().ToString();
  EXPECT_EQ(f.log->head().sequence, 3u);
}

TEST(LoopAppenderTest, DestroyingItWritesWhatIsStillQueued) {
  Fixture f;
  bool called = false;
  {
    LoopAppender appender(f.io, *f.log, f.live.get());
    appender.Append({SampleToolCallCompleted(1)}, Durability::kDeferred,
                    [&](Result<AppendedRange>) { called = true; });
  }
  EXPECT_EQ(f.log->head().sequence, 1u) << "a decided event is not dropped";
  f.io.run();  // the posted flush runs and finds the appender gone
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace las::tools
