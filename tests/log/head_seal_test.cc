// The head seal (log/head_seal.h): a writer with the key seals every head it writes; the
// events it did not write stay listed as unvouched; a seal that the log contradicts — the
// log cut, rewritten, or the seal altered — refuses the writer's open and fails a judge.
#include "log/head_seal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "log/rocks_layout.h"
#include "tests/log/raw_db.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

using testing::RawDb;
using testing::SequenceKey;

SnapshotKey KeyOf(uint8_t fill) {
  SnapshotKey key;
  key.fill(fill);
  return key;
}

LogOptions Keyed(uint8_t fill) {
  LogOptions options;
  options.seal_key = KeyOf(fill);
  return options;
}

// Appends `count` events to the log in `dir`, sealed when `options` has a key.
void Append(const std::string& dir, size_t count, const LogOptions& options) {
  auto log = EventLog::Open(dir, options);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  auto drafts = testing::OneOfEveryKind(0);
  drafts.resize(count);
  ASSERT_TRUE((*log)->Append(std::move(drafts)).ok());
}

Result<SealVerdict> SealAtOpen(const std::string& dir, uint8_t key) {
  auto log = EventLog::Open(dir, Keyed(key));
  if (!log.ok()) return log.status();
  return (*log)->seal_at_open();
}

// What a follower (las replay) judges, with key `key`.
Result<SealVerdict> FollowerJudges(const std::string& dir, uint8_t key) {
  auto reader = LogReader::Open(dir);
  if (!reader.ok()) return reader.status();
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) return cursor.status();
  return (*reader)->JudgeSeal(KeyOf(key), **cursor);
}

class HeadSealTest : public ::testing::Test {
 protected:
  testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("log");
};

TEST_F(HeadSealTest, AKeyedWriterVouchesForEveryEventItWrites) {
  Append(dir_, 3, Keyed(1));
  Append(dir_, 2, Keyed(1));
  for (auto judged : {SealAtOpen(dir_, 1), FollowerJudges(dir_, 1)}) {
    ASSERT_TRUE(judged.ok()) << judged.status().ToString();
    EXPECT_EQ(judged->state, SealState::kSealed);
    EXPECT_EQ(judged->through, 5u);
    EXPECT_TRUE(judged->unvouched.empty());
  }
}

TEST_F(HeadSealTest, EventsAppendedWithoutTheKeyStayUnvouchedAfterLaterSeals) {
  Append(dir_, 2, Keyed(1));
  Append(dir_, 3, LogOptions{});  // a writer without the key, or a forger
  auto judged = SealAtOpen(dir_, 1);
  ASSERT_TRUE(judged.ok()) << judged.status().ToString();
  EXPECT_EQ(judged->state, SealState::kSealed);
  EXPECT_EQ(judged->through, 2u);
  EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{3, 5}}));
  Append(dir_, 1, Keyed(1));
  judged = FollowerJudges(dir_, 1);
  ASSERT_TRUE(judged.ok()) << judged.status().ToString();
  EXPECT_EQ(judged->through, 6u);
  EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{3, 5}}));
}

TEST_F(HeadSealTest, ALogNeverSealedOrSealedWithAnotherKeyVouchesForNothing) {
  Append(dir_, 2, LogOptions{});
  auto judged = FollowerJudges(dir_, 1);
  ASSERT_TRUE(judged.ok());
  EXPECT_EQ(judged->state, SealState::kAbsent);
  EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{1, 2}}));
  Append(dir_, 1, Keyed(2));
  judged = FollowerJudges(dir_, 1);
  ASSERT_TRUE(judged.ok());
  EXPECT_EQ(judged->state, SealState::kOtherKey);
  EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{1, 3}}));
  judged = FollowerJudges(dir_, 2);  // key 2 found events 1-2 unsealed and sealed 3
  ASSERT_TRUE(judged.ok());
  EXPECT_EQ(judged->state, SealState::kSealed);
  EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{1, 2}}));
}

TEST_F(HeadSealTest, ACutLogIsRefusedThoughItsChainAndHeadAreConsistent) {
  Append(dir_, 4, Keyed(1));
  {
    RawDb db(dir_);
    const std::string event3 = db.Get("events", SequenceKey(3));
    db.Delete("events", SequenceKey(4));
    Head head{3, {}};
    std::memcpy(head.hash.data(), event3.data(), head.hash.size());
    db.Put("meta", std::string(layout::kHeadKey), layout::EncodeHead(head));
  }
  ASSERT_TRUE(LogReader::Open(dir_).value()->Verify().ok());  // the chain cannot tell
  for (auto judged : {SealAtOpen(dir_, 1), FollowerJudges(dir_, 1)}) {
    ASSERT_FALSE(judged.ok());
    EXPECT_EQ(judged.status().code(), Code::kCorruption);
    EXPECT_NE(judged.status().message().find("it was cut"), std::string::npos)
        << judged.status().message();
  }
  // Without the key nothing can tell: the log opens.
  EXPECT_TRUE(EventLog::Open(dir_).ok());
}

TEST_F(HeadSealTest, ASealOfAnotherHistoryIsRefused) {
  // Another log's seal, made with the same key for a different event 2 (a rewritten log
  // that kept the old seal looks so).
  const std::string other = tmp_.Sub("other");
  Append(other, 3, Keyed(1));
  Append(dir_, 2, Keyed(1));
  Append(dir_, 1, Keyed(1));
  std::string foreign_seal;
  {
    RawDb db(other);
    foreign_seal = db.Get("meta", std::string(layout::kHeadSealKey));
  }
  {
    RawDb db(dir_);
    db.Put("meta", std::string(layout::kHeadSealKey), foreign_seal);
  }
  auto judged = SealAtOpen(dir_, 1);
  ASSERT_FALSE(judged.ok());
  EXPECT_EQ(judged.status().code(), Code::kCorruption);
  EXPECT_NE(judged.status().message().find("event 3 is not the one sealed"), std::string::npos)
      << judged.status().message();
}

TEST_F(HeadSealTest, AnAlteredSealIsRefused) {
  Append(dir_, 2, Keyed(1));
  {
    RawDb db(dir_);
    std::string seal = db.Get("meta", std::string(layout::kHeadSealKey));
    seal.back() = static_cast<char>(seal.back() ^ 0x01);
    db.Put("meta", std::string(layout::kHeadSealKey), seal);
  }
  auto judged = SealAtOpen(dir_, 1);
  ASSERT_FALSE(judged.ok());
  EXPECT_EQ(judged.status().code(), Code::kCorruption);
  EXPECT_NE(judged.status().message().find("altered"), std::string::npos);
}

TEST(JudgeHeadSeal, NoAlteredByteMakesASealVouchForMore) {
  const SnapshotKey key = KeyOf(1);
  const Head head{5, Hash{7}};
  const std::string seal = EncodeHeadSeal({head, {{1, 2}}}, key);
  const HashAt hash_at = [&](uint64_t sequence) -> Result<Hash> {
    if (sequence == head.sequence) return head.hash;
    return NotFound("no such event");
  };
  auto intact = JudgeHeadSeal(seal, &key, head, hash_at);
  ASSERT_TRUE(intact.ok()) << intact.status().ToString();
  EXPECT_EQ(intact->state, SealState::kSealed);
  EXPECT_EQ(intact->unvouched, (std::vector<SequenceSpan>{{1, 2}}));
  for (size_t i = 0; i < seal.size(); ++i) {
    std::string altered = seal;
    altered[i] = static_cast<char>(altered[i] ^ 0x01);
    auto judged = JudgeHeadSeal(altered, &key, head, hash_at);
    const bool names_another_key = i < 8 || (i >= 12 && i < 20);  // the magic or the key id
    EXPECT_EQ(judged.ok(), names_another_key) << "byte " << i;
    if (judged.ok()) {
      EXPECT_EQ(judged->state, SealState::kOtherKey) << "byte " << i;
      EXPECT_EQ(judged->unvouched, (std::vector<SequenceSpan>{{1, 5}})) << "byte " << i;
    } else {
      EXPECT_EQ(judged.status().code(), Code::kCorruption) << "byte " << i;
    }
  }
  EXPECT_EQ(JudgeHeadSeal(seal, nullptr, head, hash_at)->state, SealState::kNoKey);
}

// A record naming this key that does not read as a seal (a byte appended or cut, a count
// or version changed) is this key's seal altered, never another key's: taken for another
// key's, it defeated the seal's checks and the right server stopped sealing (probe DP1).
TEST(JudgeHeadSeal, ARecordNamingThisKeyThatDoesNotReadAsASealIsAltered) {
  const SnapshotKey key = KeyOf(1);
  const Head head{5, Hash{7}};
  const std::string seal = EncodeHeadSeal({head, {}}, key);
  const HashAt hash_at = [&](uint64_t) -> Result<Hash> { return head.hash; };
  for (const std::string& damaged : {seal + '\0', seal.substr(0, seal.size() - 1),
                                     seal.substr(0, 20), seal.substr(0, 21)}) {
    auto judged = JudgeHeadSeal(damaged, &key, head, hash_at);
    ASSERT_FALSE(judged.ok()) << damaged.size() << " bytes";
    EXPECT_EQ(judged.status().code(), Code::kCorruption);
  }
  // Another key's seal, readable or not, is named by its id; bytes naming none are not.
  const SnapshotKey other = KeyOf(2);
  const std::string other_id = SealKeyId(other);
  std::string expected_hex;
  for (unsigned char c : other_id) {
    static constexpr char kDigits[] = "0123456789abcdef";
    expected_hex += kDigits[c >> 4];
    expected_hex += kDigits[c & 15];
  }
  for (const std::string& record : {EncodeHeadSeal({head, {}}, other),
                                    EncodeHeadSeal({head, {}}, other) + '\0'}) {
    auto judged = JudgeHeadSeal(record, &key, head, hash_at);
    ASSERT_TRUE(judged.ok()) << judged.status().ToString();
    EXPECT_EQ(judged->state, SealState::kOtherKey);
    EXPECT_EQ(judged->other_key_id, expected_hex);
  }
  auto garbage = JudgeHeadSeal(std::string("not a seal"), &key, head, hash_at);
  ASSERT_TRUE(garbage.ok());
  EXPECT_EQ(garbage->state, SealState::kOtherKey);
  EXPECT_EQ(garbage->other_key_id, "");
}

TEST(UnvouchedSpans, TouchingSpansMergeAndTheOldestMergePastTheBound) {
  std::vector<SequenceSpan> spans;
  AddUnvouched(spans, {1, 2});
  AddUnvouched(spans, {3, 4});
  EXPECT_EQ(spans, (std::vector<SequenceSpan>{{1, 4}}));
  for (uint64_t i = 0; i < kMaxUnvouchedSpans; ++i) AddUnvouched(spans, {10 + 2 * i, 10 + 2 * i});
  ASSERT_EQ(spans.size(), kMaxUnvouchedSpans);
  // The oldest two became one that covers the event between them too: never fewer.
  EXPECT_EQ(spans.front(), (SequenceSpan{1, 10}));
  EXPECT_EQ(spans.back().last, 10 + 2 * (kMaxUnvouchedSpans - 1));
}

}  // namespace
}  // namespace las::log
