// Tamper detection: damage a closed log directly in RocksDB, then check that verification
// names the first bad sequence. One test per kind of damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>
#include <fstream>

#include <cstring>

#include "log/chain_hash.h"
#include "log/event_log.h"
#include "log/events_generated.h"
#include "log/log_reader.h"
#include "log/rocks_layout.h"
#include "tests/log/raw_db.h"
#include "tests/support/sample_events.h"
#include "tests/support/table_files.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

using testing::RawDb;
using testing::SequenceKey;

const uint64_t kEvents = testing::OneOfEveryKind(0).size();  // one of every kind

class TamperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.Sub("log");
    auto log = EventLog::Open(dir_);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
    ASSERT_EQ((*log)->head().sequence, kEvents);
  }

  // The sequence verification blames, or 0 when the log verifies; *message gets what it
  // says when given.
  uint64_t FirstBadSequence(std::string* message = nullptr) {
    auto reader = LogReader::Open(dir_);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    auto cursor = (*reader)->Read(1);
    EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
    Status status = DrainAndVerify(**cursor);
    if (message != nullptr) *message = status.message();
    if (status.ok()) return 0;
    EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
    return (*cursor)->first_bad_sequence().value_or(0);
  }

  testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(TamperTest, IntactLogVerifies) { EXPECT_EQ(FirstBadSequence(), 0u); }

TEST_F(TamperTest, ChangingAnyByteOfAnEventIsBlamedOnThatEvent) {
  RawDb db(dir_);
  const std::string key = SequenceKey(7);
  const std::string original = db.Get("events", key);
  // Every byte: the stored hash, the sequence, the prev_hash link, the payload, padding.
  for (size_t i = 0; i < original.size(); ++i) {
    std::string damaged = original;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x01);
    db.Put("events", key, damaged);
    ASSERT_EQ(FirstBadSequence(), 7u) << "flipped byte " << i;
  }
  db.Put("events", key, original);
  EXPECT_EQ(FirstBadSequence(), 0u);
}

TEST_F(TamperTest, ReplacingAnEventWithAnotherValidEventIsCaught) {
  RawDb db(dir_);
  db.Put("events", SequenceKey(9), db.Get("events", SequenceKey(10)));
  EXPECT_EQ(FirstBadSequence(), 9u);
}

TEST_F(TamperTest, DeletingAKeyIsBlamedOnTheMissingSequence) {
  RawDb db(dir_);
  db.Delete("events", SequenceKey(7));
  EXPECT_EQ(FirstBadSequence(), 7u);
}

TEST_F(TamperTest, DeletingARangeInTheMiddleNamesItsFirstSequence) {
  RawDb db(dir_);
  for (uint64_t s = 10; s <= 12; ++s) db.Delete("events", SequenceKey(s));
  EXPECT_EQ(FirstBadSequence(), 10u);
}

TEST_F(TamperTest, SwappingTwoKeysIsBlamedOnTheFirst) {
  RawDb db(dir_);
  const std::string five = db.Get("events", SequenceKey(5));
  const std::string nine = db.Get("events", SequenceKey(9));
  db.Put("events", SequenceKey(5), nine);
  db.Put("events", SequenceKey(9), five);
  EXPECT_EQ(FirstBadSequence(), 5u);
}

TEST_F(TamperTest, InsertingAKeyBetweenTwoEventsIsCaught) {
  RawDb db(dir_);
  db.Put("events", SequenceKey(5) + std::string(1, '\0'), db.Get("events", SequenceKey(5)));
  EXPECT_EQ(FirstBadSequence(), 6u);
}

// A key below the first event (sequence 0) is named as what it is, not as a missing event.
TEST_F(TamperTest, InsertingAKeyBeforeTheFirstEventIsNamed) {
  {
    RawDb db(dir_);
    db.Put("events", SequenceKey(0), db.Get("events", SequenceKey(1)));
  }
  std::string message;
  EXPECT_EQ(FirstBadSequence(&message), 1u);
  EXPECT_NE(message.find("a key for sequence 0 stands before it"), std::string::npos) << message;
}

TEST_F(TamperTest, InsertingAKeyBeyondTheHeadIsCaught) {
  RawDb db(dir_);
  db.Put("events", SequenceKey(kEvents + 1), db.Get("events", SequenceKey(kEvents)));
  EXPECT_EQ(FirstBadSequence(), kEvents + 1);
}

// Far past the head too, the key is blamed where it lies: nothing is missing (probe BH5).
TEST_F(TamperTest, AKeyFarBeyondTheHeadIsBlamedWhereItLies) {
  {
    RawDb db(dir_);
    db.Put("events", SequenceKey(kEvents + 50), db.Get("events", SequenceKey(kEvents)));
  }
  std::string message;
  EXPECT_EQ(FirstBadSequence(&message), kEvents + 50);
  EXPECT_NE(message.find("event beyond the recorded head"), std::string::npos) << message;
}

TEST_F(TamperTest, DroppingTheTailIsCaughtAgainstTheHead) {
  RawDb db(dir_);
  for (uint64_t s = 20; s <= kEvents; ++s) db.Delete("events", SequenceKey(s));
  EXPECT_EQ(FirstBadSequence(), 20u);
}

TEST_F(TamperTest, ChangingTheHeadHashIsBlamedOnTheLastEvent) {
  RawDb db(dir_);
  std::string head = db.Get("meta", "head");
  head.back() = static_cast<char>(head.back() ^ 0x80);
  db.Put("meta", "head", head);
  EXPECT_EQ(FirstBadSequence(), kEvents);
  // The event that fails is never handed out as a good one (replay would print it).
  auto reader = LogReader::Open(dir_);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto cursor = (*reader)->Read(1);
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  uint64_t handed_out = 0;
  Result<bool> more = (*cursor)->Next();
  for (; more.ok() && *more; more = (*cursor)->Next()) handed_out = (*cursor)->current().sequence;
  EXPECT_FALSE(more.ok());
  EXPECT_EQ(handed_out, kEvents - 1);
}

// Whoever can write the store can also recompute the unkeyed chain: `envelope` as the last
// event, sealed with a correct hash, previous link and head record.
void ResealLastEvent(const std::string& dir, const std::string& envelope) {
  RawDb db(dir);
  const std::string before = db.Get("events", SequenceKey(kEvents - 1));
  Hash previous{};
  std::memcpy(previous.data(), before.data(), previous.size());
  const Hash hash = ChainHash(previous, {reinterpret_cast<const uint8_t*>(envelope.data()), envelope.size()});
  db.Put("events", SequenceKey(kEvents),
         std::string(reinterpret_cast<const char*>(hash.data()), hash.size()) + envelope);
  db.Put("meta", "head", layout::EncodeHead(Head{kEvents, hash}));
}

// An envelope that names a kind but carries no payload table verifies as FlatBuffers, yet
// no reducer can read it: the reader refuses it as a bad event instead of handing it on.
TEST_F(TamperTest, AnEventWithAKindButNoPayloadIsRefused) {
  std::string previous_link;
  {
    RawDb db(dir_);
    previous_link = db.Get("events", SequenceKey(kEvents - 1)).substr(0, 32);
  }
  flatbuffers::FlatBufferBuilder builder;
  fb::Hash32 link(flatbuffers::span<const uint8_t, 32>(
      reinterpret_cast<const uint8_t*>(previous_link.data()), 32));
  fb::EnvelopeBuilder envelope(builder);
  envelope.add_sequence(kEvents);
  envelope.add_time_micros(1);
  envelope.add_prev_hash(&link);
  envelope.add_payload_type(fb::EventPayload::StateWritten);  // and no payload
  builder.Finish(envelope.Finish(), fb::EnvelopeIdentifier());
  ResealLastEvent(dir_, std::string(reinterpret_cast<const char*>(builder.GetBufferPointer()),
                                    builder.GetSize()));
  EXPECT_EQ(FirstBadSequence(), kEvents);
  auto log = EventLog::Open(dir_);
  ASSERT_FALSE(log.ok()) << "the writer reads the head event at open";
  EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
}

// The head event's bytes are verified before the writer reads its time at open.
TEST_F(TamperTest, AHeadEventThatIsNotAnEnvelopeIsRefusedAtOpen) {
  ResealLastEvent(dir_, "not an envelope");
  auto log = EventLog::Open(dir_);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
  EXPECT_NE(log.status().message().find("not a valid event"), std::string::npos)
      << log.status().ToString();
}

TEST_F(TamperTest, WriterRefusesToOpenALogWhoseHeadDoesNotMatch) {
  {
    RawDb db(dir_);
    db.Delete("events", SequenceKey(kEvents));
  }
  auto log = EventLog::Open(dir_);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
}

// A closed log keeps its events in table files the MANIFEST lists (the writer flushes
// before it closes), so removing one refuses every open instead of shortening the log.
TEST_F(TamperTest, ADeletedTableFileIsRefused) {
  const std::set<std::filesystem::path> tables = testing::TableFiles(dir_);
  ASSERT_FALSE(tables.empty());
  for (const auto& table : tables) {
    const std::string saved = table.string() + ".saved";
    std::filesystem::rename(table, saved);
    {
      auto writer = EventLog::Open(dir_);
      EXPECT_FALSE(writer.ok()) << table << ": the writer opened at head " << (*writer)->head().sequence;
      if (!writer.ok()) {
        EXPECT_EQ(writer.status().code(), Code::kCorruption) << writer.status().ToString();
      }
    }
    std::filesystem::rename(saved, table);
  }
}

using testing::TableFiles;

// A reader (a RocksDB secondary) skips a table file its MANIFEST names but cannot find, so
// a lost file of later events read as "event 1 is missing" from a log whose first events
// are whole, or — the head's file lost too — as a whole, shorter log. The loss is reported
// as damage to the log's files instead, naming the file, and no event is blamed.
TEST(TableDamageTest, ALostTableFileIsReportedAsDamageNotAsAMissingEvent) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  std::set<std::filesystem::path> first_files;
  {
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
    ASSERT_TRUE((*log)->Flush().ok());
    first_files = TableFiles(dir);
    ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
  }
  std::vector<std::filesystem::path> later;
  for (const auto& table : TableFiles(dir)) {
    if (!first_files.count(table)) later.push_back(table);
  }
  ASSERT_FALSE(later.empty()) << "closing flushed the later events to new table files";
  for (const auto& table : later) std::filesystem::remove(table);

  // The reader refuses at its open (every file the MANIFEST names is opened once there);
  // a reader whose view lost the file later says the same when its chain breaks.
  auto reader = LogReader::Open(dir);
  Status status = reader.status();
  std::optional<uint64_t> blamed;
  if (reader.ok()) {
    auto cursor = (*reader)->Read(1);
    status = cursor.ok() ? DrainAndVerify(**cursor) : cursor.status();
    if (cursor.ok()) blamed = (*cursor)->first_bad_sequence();
  }
  EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find("the log's files are damaged"), std::string::npos)
      << status.ToString();
  // As the file that was lost (RocksDB reports the legacy .ldb name it tried last: IB3).
  EXPECT_TRUE(std::any_of(later.begin(), later.end(), [&](const auto& table) {
    return status.message().find(table.filename().string() + " is missing") != std::string::npos;
  })) << "names a lost file: " << status.ToString();
  EXPECT_EQ(status.message().find(".ldb"), std::string::npos) << status.ToString();
  EXPECT_EQ(status.message().find("Corruption: Corruption:"), std::string::npos) << status.ToString();
  EXPECT_FALSE(blamed.has_value()) << "no event is blamed, but " << *blamed;
}

// Any table file lost or cut short — the events', or the one holding the format marker —
// is named, the cut one with the size its MANIFEST records, by readers and writers alike
// (RocksDB's own text named the legacy .ldb, ran the path into "sstable" and called the
// recorded size the file's: probe IB3; a writer printed it raw, IF1; a reader took the
// marker's lost file for a deleted marker, IF2).
TEST(TableDamageTest, EachTableFileLostOrCutShortIsNamedByReadersAndWriters) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  {
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
  }
  const auto tables = TableFiles(dir);
  ASSERT_GE(tables.size(), 2u) << "closing flushed the events and the metadata to table files";
  for (const bool lost : {true, false}) {
    for (const std::filesystem::path& table : tables) {
      testing::TempDir copy_root;
      const std::string copy = copy_root.Sub("log");
      std::filesystem::copy(dir, copy);
      const std::filesystem::path damaged = std::filesystem::path(copy) / table.filename();
      const auto recorded = std::filesystem::file_size(damaged);
      if (lost) {
        std::filesystem::remove(damaged);
      } else {
        std::filesystem::resize_file(damaged, recorded / 2);
      }
      const std::string expected =
          "the log's files are damaged: table file " + damaged.string() +
          (lost ? " is missing"
                : " is cut short (its MANIFEST records " + std::to_string(recorded) + " bytes)");
      for (const Status& refused : {LogReader::Open(copy).status(), EventLog::Open(copy).status()}) {
        EXPECT_EQ(refused.code(), Code::kCorruption) << refused.ToString();
        EXPECT_NE(refused.message().find(expected), std::string::npos)
            << expected << "\n" << refused.ToString();
      }
    }
  }
}

// A byte flipped inside a table file's data block (a disk error, or an edit that did not
// bother with the hashes) fails that block's checksum: the events before it are read and
// verify, and the first event of the block is named.
TEST(TableDamageTest, ABlockThatFailsItsChecksumNamesItsFirstEvent) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  uint64_t appended = 0;
  {
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    for (int i = 0; i < 200; ++i) ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
    appended = (*log)->head().sequence;
  }
  const std::filesystem::path largest = testing::LargestTableFile(dir);
  ASSERT_FALSE(largest.empty()) << "a closed log keeps its events in table files";
  testing::FlipTheMiddleByte(largest);
  auto reader = LogReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto cursor = (*reader)->Read(1);
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  uint64_t read = 0;
  Status status;
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
    ++read;
  }
  EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
  ASSERT_TRUE((*cursor)->first_bad_sequence().has_value()) << status.ToString();
  EXPECT_EQ(*(*cursor)->first_bad_sequence(), read + 1);
  EXPECT_GT(read, 0u);
  EXPECT_LT(read, appended);
}

}  // namespace
}  // namespace las::log
