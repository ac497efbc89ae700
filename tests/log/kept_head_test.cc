// The kept head (log/kept_head.h): a record of a durable head kept outside the log, which
// does not roll back with it. Judged against hand-made logs (a map of hashes), and kept by
// a real EventLog through KeepHead.
#include "log/kept_head.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "log/event_log.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

SnapshotKey KeyOf(uint8_t fill) {
  SnapshotKey key;
  key.fill(fill);
  return key;
}

Hash HashOf(uint8_t fill) {
  Hash hash;
  hash.fill(fill);
  return hash;
}

// A log of `events` events whose event n has the hash HashOf(n).
struct HandMadeLog {
  uint64_t events = 0;
  std::map<uint64_t, Hash> rewritten;  // events with another hash
  Head head() const { return {events, events == 0 ? Hash{} : EventHash(events)}; }
  Hash EventHash(uint64_t sequence) const {
    auto it = rewritten.find(sequence);
    return it != rewritten.end() ? it->second : HashOf(static_cast<uint8_t>(sequence));
  }
  HashAt Reader() const {
    return [this](uint64_t sequence) -> Result<Hash> {
      if (sequence == 0 || sequence > events) return NotFound("no such event");
      return EventHash(sequence);
    };
  }
};

Result<KeptVerdict> Judge(const HandMadeLog& log, const std::optional<std::string>& record,
                          uint8_t key = 7) {
  std::optional<std::string_view> stored;
  if (record) stored = *record;
  return JudgeKeptHead(stored, KeyOf(key), log.head(), log.Reader());
}

// What a writer with key 7 kept when `log` had `events` events.
std::string KeptAt(const HandMadeLog& log, uint64_t events) {
  return EncodeKeptHead(KeptHead{log.EventHash(1), Head{events, log.EventHash(events)}}, KeyOf(7));
}

TEST(JudgeKeptHead, ALogThatStillHoldsTheKeptHeadPasses) {
  HandMadeLog log{12, {}};
  for (uint64_t kept : {uint64_t{12}, uint64_t{5}}) {
    auto verdict = Judge(log, KeptAt(log, kept));
    ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
    EXPECT_EQ(verdict->state, KeptState::kHolds);
    EXPECT_EQ(verdict->kept.head.sequence, kept);
    EXPECT_EQ(verdict->kept.first, HashOf(1));
  }
  auto none = Judge(log, std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->state, KeptState::kNone);
}

// Probe DJ2: the log put back to an earlier state (its seal of then verifies) ends before
// the kept head, or holds another event there.
TEST(JudgeKeptHead, ALogRolledBackOrRewrittenBelowTheKeptHeadIsRefused) {
  HandMadeLog before{12, {}};
  const std::string kept = KeptAt(before, 12);
  HandMadeLog rolled_back{10, {}};
  auto refused = Judge(rolled_back, kept);
  ASSERT_EQ(refused.status().code(), Code::kCorruption);
  EXPECT_EQ(refused.status().message(),
            "the log ends at event 10, but this key's writer left it at event 12: it was rolled "
            "back or cut");
  HandMadeLog rewritten{14, {{12, HashOf(200)}}};
  auto other = Judge(rewritten, kept);
  ASSERT_EQ(other.status().code(), Code::kCorruption);
  EXPECT_NE(other.status().message().find("event 12 is not the one this key's writer left at "
                                          "the head"),
            std::string::npos)
      << other.status().message();
}

TEST(JudgeKeptHead, AnotherLogInThePlaceIsToldNotRefused) {
  HandMadeLog before{12, {}};
  const std::string kept = KeptAt(before, 12);
  HandMadeLog anew{3, {{1, HashOf(99)}}};
  auto verdict = Judge(anew, kept);
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_EQ(verdict->state, KeptState::kOtherLog);
  EXPECT_EQ(verdict->kept.head.sequence, 12u);
  auto empty = Judge(HandMadeLog{0, {}}, kept);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->state, KeptState::kOtherLog);
}

TEST(JudgeKeptHead, AnotherKeysRecordIsNotJudgedAndAnAlteredOneIsRefused) {
  HandMadeLog log{12, {}};
  const std::string kept = KeptAt(log, 12);
  auto other = Judge(HandMadeLog{3, {}}, kept, /*key=*/8);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->state, KeptState::kOtherKey);
  auto garbage = Judge(log, std::string("not a kept head"));
  ASSERT_TRUE(garbage.ok());
  EXPECT_EQ(garbage->state, KeptState::kOtherKey);
  // Every byte after the key id altered: the MAC fails (the sequence lowered to pass a
  // rolled-back log, say).
  for (size_t at = 20; at < kept.size(); ++at) {
    std::string altered = kept;
    altered[at] = static_cast<char>(altered[at] ^ 0x01);
    auto judged = Judge(HandMadeLog{10, {}}, altered);
    EXPECT_EQ(judged.status().code(), Code::kCorruption) << "byte " << at;
  }
}

// A real log hands its durable head to the keeper: soon after KeepHead, after appends, and
// at close after the last sync (a deferred append included) — never an empty log's head.
TEST(KeepHead, TheLogHandsOverEachDurableHeadAndItsFirstEventsHash) {
  testing::TempDir tmp;
  std::mutex mu;
  std::condition_variable changed;
  std::vector<KeptHead> kept;
  auto keeper = [&](const KeptHead& head) {
    std::lock_guard lock(mu);
    kept.push_back(head);
    changed.notify_all();
  };
  auto await = [&](uint64_t sequence) {
    std::unique_lock lock(mu);
    return changed.wait_for(lock, std::chrono::seconds(20), [&] {
      return !kept.empty() && kept.back().head.sequence == sequence;
    });
  };
  Hash first{};
  Hash third{};
  {
    auto log = EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    (*log)->KeepHead(keeper, /*every_micros=*/1000);
    std::vector<EventDraft> two = {testing::SampleToolCallRequested(1),
                                   testing::SampleToolCallCompleted(1)};
    ASSERT_TRUE((*log)->Append(std::move(two)).ok());
    ASSERT_TRUE(await(2));
    first = *(*log)->EventHash(1);
    {
      std::lock_guard lock(mu);
      EXPECT_EQ(kept.back().first, first);
      EXPECT_EQ(kept.back().head.hash, *(*log)->EventHash(2));
    }
    std::vector<EventDraft> one = {testing::SampleToolCallRequested(2)};
    ASSERT_TRUE((*log)->Append(std::move(one), Durability::kDeferred).ok());
    third = (*log)->head().hash;
  }
  std::lock_guard lock(mu);
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back().head.sequence, 3u) << "kept at close, after the last sync";
  EXPECT_EQ(kept.back().head.hash, third);
  EXPECT_EQ(kept.back().first, first);
  for (const KeptHead& head : kept) EXPECT_GT(head.head.sequence, 0u) << "never an empty log's";
}

// A new log's first head is kept as soon as its first events are synced, not an interval
// later: a server killed in its first second left no head, and the next start said one
// had been lost (probe FG3). The interval here is a minute; the keep comes at once.
TEST(KeepHead, ANewLogsFirstHeadIsKeptWithoutWaitingForTheInterval) {
  testing::TempDir tmp;
  std::mutex mu;
  std::condition_variable changed;
  std::vector<KeptHead> kept;
  auto log = EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  (*log)->KeepHead(
      [&](const KeptHead& head) {
        std::lock_guard lock(mu);
        kept.push_back(head);
        changed.notify_all();
      },
      /*every_micros=*/60'000'000);
  std::vector<EventDraft> one = {testing::SampleToolCallRequested(1)};
  ASSERT_TRUE((*log)->Append(std::move(one)).ok());
  std::unique_lock lock(mu);
  EXPECT_TRUE(changed.wait_for(lock, std::chrono::seconds(20), [&] { return !kept.empty(); }))
      << "no head kept within 20 s of the first synced append";
  if (!kept.empty()) {
    EXPECT_EQ(kept.front().head.sequence, 1u);
  }
}

}  // namespace
}  // namespace las::log
