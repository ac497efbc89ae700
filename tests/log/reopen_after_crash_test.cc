// Reopening a log a crash left with write-ahead log files the MANIFEST still tracks.
//
// The writer sets track_and_verify_wals_in_manifest. Once a memtable has been switched
// (after 64 MiB of events, or by the closing flush on a full disk), the old WAL stays live,
// and tracked, until every family has flushed what it holds; a crash in between leaves it
// so. Every open of such a log, the format check's read-only one included, must recover
// it: RocksDB 7.8 aborts (an assertion in DBImpl::Recover) a read-only open that does not
// track WALs when the MANIFEST does (probe N3: no writer could open the log again).
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <string>
#include <vector>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "log/rocks_layout.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

// Leaves `dir` as a crash right after a memtable switch does: the meta family holds an
// unflushed write (its own marker, rewritten unchanged) in a WAL the MANIFEST tracks as
// closed, while the default family's flush moved writing on to a new WAL.
void LeaveATrackedLiveWal(const std::string& dir) {
  rocksdb::Options options;
  options.track_and_verify_wals_in_manifest = true;
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, families, &handles, &raw).ok());
  auto handle = [&](std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return handles[i];
    }
    return static_cast<rocksdb::ColumnFamilyHandle*>(nullptr);
  };
  rocksdb::WriteOptions synced;
  synced.sync = true;
  ASSERT_TRUE(raw->Put(synced, handle(layout::kMetaFamily), std::string(layout::kMagicKey),
                       std::string(layout::kMagicValue))
                  .ok());
  ASSERT_TRUE(raw->Put(synced, handle(rocksdb::kDefaultColumnFamilyName), "unused", "x").ok());
  ASSERT_TRUE(raw->Flush(rocksdb::FlushOptions(), handle(rocksdb::kDefaultColumnFamilyName)).ok());
  ASSERT_TRUE(raw->Put(synced, handle(rocksdb::kDefaultColumnFamilyName), "unused", "y").ok());
  for (auto* family : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(family).ok());
  // With the WAL on, Close flushes nothing: the meta write stays in the tracked old WAL.
  ASSERT_TRUE(raw->Close().ok());
  delete raw;
}

TEST(ReopenAfterCrashTest, AWriterReopensALogWhoseManifestTracksLiveWals) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  {
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
  }
  LeaveATrackedLiveWal(dir);

  auto reopened = EventLog::Open(dir);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  const uint64_t head = (*reopened)->head().sequence;
  EXPECT_EQ(head, testing::OneOfEveryKind(0).size());
  auto appended = (*reopened)->Append(testing::OneOfEveryKind(0));
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  reopened->reset();

  auto reader = LogReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Verify().ok());
  auto read_head = (*reader)->head();
  ASSERT_TRUE(read_head.ok());
  EXPECT_EQ(read_head->sequence, 2 * head);
}

}  // namespace
}  // namespace las::log
