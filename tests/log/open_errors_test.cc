// Opening what is not a usable Las log: each case a clear error with its own code, and
// nothing written.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <map>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "tests/log/closed_log.h"
#include "tests/log/raw_db.h"
#include "tests/support/sample_events.h"
#include "tests/support/table_files.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

namespace fs = std::filesystem;

size_t EntriesIn(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(OpenErrorsTest, ADirectoryWithOtherFilesIsNotALogAndIsLeftAlone) {
  testing::TempDir tmp;
  std::ofstream(tmp.Sub("notes.txt")) << "mine";
  auto log = EventLog::Open(tmp.path().string());
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kNotALog) << log.status().ToString();
  EXPECT_EQ(EntriesIn(tmp.path()), 1u);
  EXPECT_EQ(LogReader::Open(tmp.path().string()).status().code(), Code::kNotALog);
}

// The directory that holds a log, given for the log: the message names the log within
// (probe DX5); a directory with other files and no log within gets no such guess.
TEST(OpenErrorsTest, TheDirectoryHoldingALogIsNotALogAndNamesTheLogWithin) {
  testing::TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(tmp.Sub("log")));
  std::ofstream(tmp.Sub("release.json")) << "{}";
  auto log = EventLog::Open(tmp.path().string());
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kNotALog);
  EXPECT_NE(log.status().message().find("is the log " + tmp.Sub("log") + "?"), std::string::npos)
      << log.status().message();
  testing::TempDir other;
  std::ofstream(other.Sub("notes.txt")) << "mine";
  auto plain = LogReader::Open(other.path().string());
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().message().find("is the log"), std::string::npos);
}

// A log that lost RocksDB's CURRENT or MANIFEST is damaged (exit 3), not foreign (5) or an
// I/O failure (9).
TEST(OpenErrorsTest, ALogMissingItsCurrentOrManifestIsCorrupt) {
  for (const std::string lost : {"CURRENT", "MANIFEST-"}) {
    testing::TempDir tmp;
    const std::string dir = tmp.Sub("log");
    ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename().string().starts_with(lost)) fs::remove(entry.path());
    }
    auto writer = EventLog::Open(dir);
    ASSERT_FALSE(writer.ok()) << lost;
    EXPECT_EQ(writer.status().code(), Code::kCorruption) << lost << ": " << writer.status().ToString();
    EXPECT_EQ(LogReader::Open(dir).status().code(), Code::kCorruption) << lost;
  }
}

// Table files emptied by a disk error: a reader, whose first read is the format marker, says
// corruption (exit 3) as the writer does, not "not a Las log" (exit 5).
TEST(OpenErrorsTest, EmptiedTableFilesAreCorruptionForTheReaderToo) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  const auto tables = testing::TableFiles(dir);
  ASSERT_FALSE(tables.empty()) << "a closed log keeps its events in table files";
  for (const auto& table : tables) fs::resize_file(table, 0);
  auto reader = LogReader::Open(dir);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Code::kCorruption) << reader.status().ToString();
  EXPECT_EQ(EventLog::Open(dir).status().code(), Code::kCorruption);
}

TEST(OpenErrorsTest, AFileIsNotALog) {
  testing::TempDir tmp;
  std::ofstream(tmp.Sub("file")) << "x";
  EXPECT_EQ(EventLog::Open(tmp.Sub("file")).status().code(), Code::kNotALog);
}

// A new log's creation killed before its format marker was written leaves LAS-CREATING
// beside RocksDB's first files: the next writer starts it over, instead of calling it
// damaged (exit 3) or foreign (exit 5) for good (probe CW1). Without the marker the same
// files stay someone else's; a creation still under way (the marker locked) is "locked".
TEST(OpenErrorsTest, ACreationKilledBeforeItsMarkerIsStartedOver) {
  auto plain_rocksdb = [](const std::string& dir) {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir, &db).ok());
    delete db;
  };
  const std::map<std::string, std::function<void(const std::string&)>> killed_at = {
      {"MANIFEST written, no CURRENT",
       [&](const std::string& dir) {
         plain_rocksdb(dir);
         fs::remove(fs::path(dir) / "CURRENT");
       }},
      {"CURRENT written, no families", plain_rocksdb},
      {"a temporary file", [](const std::string& dir) {
         fs::create_directories(dir);
         std::ofstream(fs::path(dir) / "000000.dbtmp") << "";
       }}};
  for (const auto& [moment, leave] : killed_at) {
    testing::TempDir tmp;
    const std::string dir = tmp.Sub("log");
    ASSERT_NO_FATAL_FAILURE(leave(dir));
    std::ofstream(fs::path(dir) / "LAS-CREATING") << "";
    EXPECT_EQ(LogReader::Open(dir).status().code(), Code::kNotFound) << moment;
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << moment << ": " << log.status().ToString();
    EXPECT_EQ((*log)->head().sequence, 0u);
    EXPECT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok()) << moment;
    EXPECT_FALSE(fs::exists(fs::path(dir) / "LAS-CREATING")) << moment;
  }
  // Made whole, but killed before the marker went: the log is kept, the marker removed.
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  const size_t events = testing::OneOfEveryKind(0).size();
  std::ofstream(fs::path(dir) / "LAS-CREATING") << "";
  ASSERT_TRUE(LogReader::Open(dir).ok());
  {
    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    EXPECT_EQ((*log)->head().sequence, events);
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "LAS-CREATING"));
  // A creation under way holds the marker locked: another writer waits its turn.
  testing::TempDir busy;
  const std::string under_way = busy.Sub("log");
  ASSERT_NO_FATAL_FAILURE(plain_rocksdb(under_way));
  const std::string marker = (fs::path(under_way) / "LAS-CREATING").string();
  const int held = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  EXPECT_EQ(EventLog::Open(under_way).status().code(), Code::kLocked);
  EXPECT_EQ(LogReader::Open(under_way).status().code(), Code::kNotFound);
  EXPECT_TRUE(fs::exists(fs::path(under_way) / "CURRENT")) << "nothing of it was removed";
  ::close(held);
}

// A marker beside anything a creation does not make before its first write — files named
// like RocksDB's but not made by it, a damaged log's written files — removes nothing: the
// directory reads as it would without the marker (probe CZ F3: foreign files, and a log
// whose CURRENT was lost, were deleted).
TEST(OpenErrorsTest, AMarkerBesideWrittenOrForeignFilesRemovesNothing) {
  testing::TempDir foreign;
  for (const char* name : {"app.log", "notes.sst", "photo.blob", "LAS-CREATING"}) {
    std::ofstream(foreign.Sub(name)) << "mine";
  }
  EXPECT_EQ(EventLog::Open(foreign.path().string()).status().code(), Code::kNotALog);
  EXPECT_EQ(EntriesIn(foreign.path()), 4u);

  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  fs::rename(fs::path(dir) / "CURRENT", tmp.Sub("CURRENT.saved"));
  std::ofstream(fs::path(dir) / "LAS-CREATING") << "";
  const size_t files = EntriesIn(dir);
  EXPECT_EQ(EventLog::Open(dir).status().code(), Code::kCorruption);
  EXPECT_EQ(EntriesIn(dir), files) << "the damaged log's files are all there";
  fs::rename(tmp.Sub("CURRENT.saved"), fs::path(dir) / "CURRENT");
  auto log = EventLog::Open(dir);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ((*log)->head().sequence, testing::OneOfEveryKind(0).size());
}

// A marker that is no regular file is just another file (probe DD7: a FIFO hung every open,
// a directory made the log "locked" for good).
TEST(OpenErrorsTest, AMarkerThatIsNoRegularFileIsAnotherFile) {
  testing::TempDir fifo;
  ASSERT_EQ(::mkfifo(fifo.Sub("LAS-CREATING").c_str(), 0600), 0);
  EXPECT_EQ(EventLog::Open(fifo.path().string()).status().code(), Code::kNotALog);
  EXPECT_EQ(LogReader::Open(fifo.path().string()).status().code(), Code::kNotALog);
  testing::TempDir directory;
  fs::create_directory(directory.Sub("LAS-CREATING"));
  EXPECT_EQ(EventLog::Open(directory.path().string()).status().code(), Code::kNotALog);
}

TEST(OpenErrorsTest, AnotherRocksDbIsNotALog) {
  testing::TempDir tmp;
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, tmp.Sub("db"), &db).ok());
    delete db;
  }
  auto log = EventLog::Open(tmp.Sub("db"));
  EXPECT_EQ(log.status().code(), Code::kNotALog) << log.status().ToString();
}

// Probe GJ1: a column family no Las log has made the writer's open fail as an I/O error
// (RocksDB opens for writing only with every family), while readers and `las replay`
// took the log as whole. It is something else's, beside the log: never read or written.
TEST(OpenErrorsTest, AForeignColumnFamilyBesideTheLogIsLeftAlone) {
  testing::TempDir tmp;
  {
    auto log = EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append({testing::SampleToolCallRequested(1)}).ok());
  }
  testing::RawDb(tmp.Sub("log")).AddFamily("zzz", "k", "v");
  for (uint64_t call = 2; call <= 3; ++call) {
    auto log = EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    auto appended = (*log)->Append({testing::SampleToolCallRequested(call)});
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    EXPECT_EQ(appended->first, call);
  }
  auto reader = LogReader::Open(tmp.Sub("log"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Verify().ok());
  EXPECT_EQ(testing::RawDb(tmp.Sub("log")).Get("zzz", "k"), "v");
}

TEST(OpenErrorsTest, ANewerFormatVersionIsRefused) {
  testing::TempDir tmp;
  ASSERT_TRUE(EventLog::Open(tmp.Sub("log")).ok());
  {
    testing::RawDb db(tmp.Sub("log"));
    db.Put("meta", "format_version", std::string("\0\0\0\x02", 4));
  }
  const auto before = testing::FileContents(tmp.Sub("log"));
  auto log = EventLog::Open(tmp.Sub("log"));
  EXPECT_EQ(log.status().code(), Code::kUnsupported) << log.status().ToString();
  EXPECT_NE(log.status().message().find("newer"), std::string::npos);
  EXPECT_EQ(LogReader::Open(tmp.Sub("log")).status().code(), Code::kUnsupported);
  EXPECT_TRUE(testing::FileContents(tmp.Sub("log")) == before) << "the refused log was written to";
}

// A log whose marker was altered or deleted is a damaged log (its column families are
// Las's), not someone else's directory: refused as corruption, naming what happened to the
// marker, before the writer's open rewrites any file (probe IB1, IB2).
TEST(OpenErrorsTest, AnAlteredOrDeletedMarkerIsDamageRefusedWithoutWriting) {
  const std::pair<const char*, std::function<void(testing::RawDb&)>> edits[] = {
      {"the format marker is altered", [](testing::RawDb& db) { db.Put("meta", "magic", "someone else"); }},
      {"the format marker is missing", [](testing::RawDb& db) { db.Delete("meta", "magic"); }},
  };
  for (const auto& [expected, edit] : edits) {
    testing::TempDir tmp;
    ASSERT_TRUE(EventLog::Open(tmp.Sub("log")).ok());
    {
      testing::RawDb db(tmp.Sub("log"));
      edit(db);
    }
    const auto before = testing::FileContents(tmp.Sub("log"));
    for (const Status& refused :
         {EventLog::Open(tmp.Sub("log")).status(), LogReader::Open(tmp.Sub("log")).status()}) {
      EXPECT_EQ(refused.code(), Code::kCorruption) << refused.ToString();
      EXPECT_NE(refused.message().find(expected), std::string::npos) << refused.ToString();
    }
    EXPECT_TRUE(testing::FileContents(tmp.Sub("log")) == before) << "the refused log was written to";
  }
}

// A record of the write-ahead log that fails its checksum: RocksDB's status says only
// "checksum mismatch"; the refusal names the file and what its recovery would drop, for
// readers and writers alike (probe IB4).
TEST(OpenErrorsTest, ADamagedWriteAheadLogIsNamed) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  {
    testing::RawDb db(dir);  // its write stays in the WAL: nothing flushes it
    db.Put("meta", "padding", std::string(4000, 'a'));
  }
  fs::path wal;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".log" &&
        (wal.empty() || fs::file_size(entry.path()) > fs::file_size(wal))) {
      wal = entry.path();
    }
  }
  ASSERT_FALSE(wal.empty());
  ASSERT_GT(fs::file_size(wal), 2000u) << "the padding is in " << wal;
  {
    std::fstream file(wal, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(wal) / 2));
    file.put('Z');
  }
  const auto before = testing::FileContents(dir);
  for (const Status& refused : {LogReader::Open(dir).status(), EventLog::Open(dir).status()}) {
    EXPECT_EQ(refused.code(), Code::kCorruption) << refused.ToString();
    EXPECT_NE(refused.message().find("(in the write-ahead log, which holds the newest events: " +
                                     wal.string() + ": dropping "),
              std::string::npos)
        << refused.ToString();
  }
  EXPECT_TRUE(testing::FileContents(dir) == before) << "the refused log was written to";
}

// An event planted beyond the head, or a head record that names another event, still in
// the WAL: refused as damage before the writer's open recovers the WAL into new table files
// and deletes it (the planted record is the evidence: probe AY1).
TEST(OpenErrorsTest, ADamagedHeadInTheWalIsRefusedWithoutWriting) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  const uint64_t head = testing::OneOfEveryKind(0).size();
  const std::pair<const char*, std::function<void(testing::RawDb&)>> plants[] = {
      {"beyond the recorded head",
       [&](testing::RawDb& db) {
         db.Put("events", testing::SequenceKey(head + 1), db.Get("events", testing::SequenceKey(head)));
       }},
      {"does not match the head record",
       [&](testing::RawDb& db) { db.Delete("events", testing::SequenceKey(head)); }},
  };
  for (const auto& [expected, plant] : plants) {
    testing::TempDir copy_root;
    const std::string copy = copy_root.Sub("log");
    fs::copy(dir, copy);
    {
      testing::RawDb db(copy);
      plant(db);
    }
    const auto before = testing::FileContents(copy);
    auto log = EventLog::Open(copy);
    ASSERT_FALSE(log.ok()) << expected;
    EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
    EXPECT_NE(log.status().message().find(expected), std::string::npos) << log.status().ToString();
    EXPECT_TRUE(testing::FileContents(copy) == before) << expected << ": the refused log was written to";
  }
}

// A MANIFEST cut short lists fewer column families; the OPTIONS file still names the
// log's: a damaged log (exit 3), not someone else's database (exit 5).
TEST(OpenErrorsTest, ATruncatedManifestIsDamageNotAForeignDatabase) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with("MANIFEST-")) fs::resize_file(entry.path(), 0);
  }
  EXPECT_EQ(EventLog::Open(dir).status().code(), Code::kCorruption);
  EXPECT_EQ(LogReader::Open(dir).status().code(), Code::kCorruption);
}

// A directory that cannot be made is not damage: an empty path is a usage error, a path
// under /proc an I/O error.
TEST(OpenErrorsTest, ALogThatCannotBeCreatedIsNotCorruption) {
  EXPECT_EQ(EventLog::Open("").status().code(), Code::kInvalidArgument);
  auto unmakeable = EventLog::Open("/proc/self/no-log-here");
  EXPECT_EQ(unmakeable.status().code(), Code::kIo) << unmakeable.status().ToString();
}

// A log directory made immutable (chattr +i: EPERM even for root, where mode bits do not
// count) is refused as denied (exit 8), like one this user may not write, not as I/O.
TEST(OpenErrorsTest, AnImmutableLogDirectoryIsDenied) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  WriteClosedLog(dir);
  const std::string quoted = "'" + dir + "'";
  if (std::system(("chattr +i " + quoted + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "chattr +i is not available here: the EPERM case is not tested";
  }
  Status status;
  {
    auto open = EventLog::Open(dir);  // closed before the flag is cleared
    status = open.status();
  }
  EXPECT_EQ(std::system(("chattr -i " + quoted).c_str()), 0);
  EXPECT_EQ(status.code(), Code::kDenied) << status.ToString();
}

// Only another holder is "locked" (exit 7, "held by another las process": wait and retry).
// A lock file that cannot be opened for any other reason is no one's doing and waiting
// never helps: an I/O error (exit 9) with the system's reason (probe AE2).
Status OpenWithLockReplaced(const std::string& dir, const std::function<void(const fs::path&)>& replace) {
  const fs::path lock = fs::path(dir) / "LOCK";
  fs::remove(lock);
  replace(lock);
  auto log = EventLog::Open(dir);
  return log.status();
}

TEST(OpenErrorsTest, ALockFileThatIsADirectoryIsAnIoErrorNotLocked) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  Status status = OpenWithLockReplaced(dir, [](const fs::path& lock) { fs::create_directory(lock); });
  EXPECT_EQ(status.code(), Code::kIo) << status.ToString();
  EXPECT_NE(status.message().find("Is a directory"), std::string::npos) << status.ToString();
  EXPECT_EQ(status.message().find("another las process"), std::string::npos) << status.ToString();
  // Not held by this process either: once LOCK is a file again, the log opens.
  fs::remove(fs::path(dir) / "LOCK");
  auto reopened = EventLog::Open(dir);
  EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
}

TEST(OpenErrorsTest, ADanglingLockSymlinkIsAnIoErrorNotLockedNorDamage) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  Status status = OpenWithLockReplaced(dir, [&](const fs::path& lock) {
    fs::create_symlink(tmp.Sub("gone/LOCK"), lock);
  });
  EXPECT_EQ(status.code(), Code::kIo) << status.ToString();
  EXPECT_NE(status.message().find("No such file or directory"), std::string::npos) << status.ToString();
  EXPECT_EQ(status.message().find("another las process"), std::string::npos) << status.ToString();
}

// A mount this test may make (root, a kernel that allows it); else the case is skipped.
class Mount {
 public:
  Mount(const std::string& command, std::string target) : target_(std::move(target)) {
    made_ = ::geteuid() == 0 && std::system((command + " 2>/dev/null").c_str()) == 0;
  }
  ~Mount() {
    if (made_) (void)std::system(("umount '" + target_ + "'").c_str());
  }
  bool made() const { return made_; }

 private:
  std::string target_;
  bool made_ = false;
};

TEST(OpenErrorsTest, ALogOnAReadOnlyFileSystemIsAnIoErrorNotLocked) {
  testing::TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(tmp.Sub("log")));
  const std::string ro = tmp.Sub("ro");
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_all);
  Mount mount("mount --bind '" + tmp.Sub("log") + "' '" + ro + "' && mount -o remount,bind,ro '" + ro + "'", ro);
  if (!mount.made()) GTEST_SKIP() << "cannot bind-mount read-only here (not root?)";
  auto log = EventLog::Open(ro);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kIo) << log.status().ToString();
  EXPECT_NE(log.status().message().find("Read-only file system"), std::string::npos) << log.status().ToString();
  EXPECT_EQ(log.status().message().find("another las process"), std::string::npos) << log.status().ToString();
  // The auditor still reads it.
  auto reader = LogReader::Open(ro);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Verify().ok());
}

// A file system out of inodes: LOCK cannot be created (ENOSPC).
TEST(OpenErrorsTest, NoInodeLeftForTheLockIsAnIoErrorNotLocked) {
  testing::TempDir tmp;
  const std::string mnt = tmp.Sub("full");
  fs::create_directory(mnt);
  Mount mount("mount -t tmpfs -o size=1m,nr_inodes=16,mode=0700 las-test '" + mnt + "'", mnt);
  if (!mount.made()) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  const std::string dir = mnt + "/log";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  for (int i = 0; i < 64; ++i) {  // use up every inode left
    if (::mkdir((mnt + "/fill" + std::to_string(i)).c_str(), 0700) != 0) break;
  }
  auto log = EventLog::Open(dir);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), Code::kIo) << log.status().ToString();
  EXPECT_NE(log.status().message().find("No space left on device"), std::string::npos) << log.status().ToString();
  EXPECT_EQ(log.status().message().find("another las process"), std::string::npos) << log.status().ToString();
}

// The version sits beside the marker in every Las log: without it, or as 0, the log is
// damaged (exit 3), not "no log here" (exit 4).
TEST(OpenErrorsTest, AMissingOrZeroFormatVersionIsDamage) {
  testing::TempDir tmp;
  ASSERT_TRUE(EventLog::Open(tmp.Sub("log")).ok());
  {
    testing::RawDb db(tmp.Sub("log"));
    db.Put("meta", "format_version", std::string("\0\0\0\0", 4));
  }
  EXPECT_EQ(LogReader::Open(tmp.Sub("log")).status().code(), Code::kCorruption);
  {
    testing::RawDb db(tmp.Sub("log"));
    db.Delete("meta", "format_version");
  }
  auto log = EventLog::Open(tmp.Sub("log"));
  EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
  EXPECT_EQ(LogReader::Open(tmp.Sub("log")).status().code(), Code::kCorruption);
}

TEST(OpenErrorsTest, AReaderNeedsAnExistingLogAndCreatesNothing) {
  testing::TempDir tmp;
  auto reader = LogReader::Open(tmp.Sub("missing"));
  EXPECT_EQ(reader.status().code(), Code::kNotFound) << reader.status().ToString();
  EXPECT_FALSE(fs::exists(tmp.Sub("missing")));
}

TEST(OpenErrorsTest, AWriterWithoutCreateNeedsAnExistingLog) {
  testing::TempDir tmp;
  auto log = EventLog::Open(tmp.Sub("missing"), {.create_if_missing = false});
  EXPECT_EQ(log.status().code(), Code::kNotFound);
  EXPECT_FALSE(fs::exists(tmp.Sub("missing")));
}

TEST(OpenErrorsTest, AReaderWorksWhileTheWriterHoldsTheLog) {
  testing::TempDir tmp;
  auto log = EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
  auto reader = LogReader::Open(tmp.Sub("log"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const uint64_t kinds = testing::OneOfEveryKind(0).size();
  EXPECT_EQ((*reader)->head()->sequence, kinds);
  ASSERT_TRUE((*log)->Append({testing::SampleToolCallRequested(1)}).ok());
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_EQ((*reader)->head()->sequence, kinds + 1);
  EXPECT_TRUE((*reader)->Verify().ok());
}

// A log removed (rm -rf) under a reader following it is an I/O failure, not damage found in
// its events (probe AP2: `las events tail -f` exited 3, "corruption", on a missing CURRENT).
TEST(OpenErrorsTest, ALogRemovedUnderAReaderIsAnIoErrorNotCorruption) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  auto reader = LogReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  fs::remove(fs::path(dir) / "CURRENT");  // rm -rf takes the files first, then the directory
  Status caught_up = (*reader)->CatchUp();
  EXPECT_EQ(caught_up.code(), Code::kIo) << caught_up.ToString();
  EXPECT_NE(caught_up.message().find("removed or replaced while it was read"), std::string::npos)
      << caught_up.ToString();
  fs::remove_all(dir);
  caught_up = (*reader)->CatchUp();
  EXPECT_EQ(caught_up.code(), Code::kIo) << caught_up.ToString();

  // Removed at once, it is said the same way, whatever RocksDB made of it (here: a WAL
  // directory it cannot open; probe AV6).
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  auto another = LogReader::Open(dir);
  ASSERT_TRUE(another.ok()) << another.status().ToString();
  fs::remove_all(dir);
  caught_up = (*another)->CatchUp();
  EXPECT_EQ(caught_up.code(), Code::kIo) << caught_up.ToString();
  EXPECT_NE(caught_up.message().find("removed or replaced while it was read"), std::string::npos)
      << caught_up.ToString();
}

// Another log put in the place of the one a reader follows is not read on as if it
// continued it (probe AS2: `las events tail -f` printed the other log's events as the next
// ones): the reader's next catch-up is an I/O error.
TEST(OpenErrorsTest, ALogReplacedUnderAReaderIsAnIoError) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(tmp.Sub("other")));
  auto reader = LogReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_TRUE((*reader)->CatchUp().ok());
  fs::rename(dir, tmp.Sub("log.old"));
  fs::rename(tmp.Sub("other"), dir);
  const Status caught_up = (*reader)->CatchUp();
  EXPECT_EQ(caught_up.code(), Code::kIo) << caught_up.ToString();
  EXPECT_NE(caught_up.message().find("removed or replaced"), std::string::npos) << caught_up.ToString();
}

// A reader writes nothing outside the log: a reader killed by a signal leaves nothing behind.
TEST(OpenErrorsTest, AReaderCreatesNoFilesInTheTempDirectory) {
  testing::TempDir tmp;
  const std::string temp = tmp.Sub("temp");
  fs::create_directory(temp);
  const char* saved = std::getenv("TMPDIR");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", temp.c_str(), 1);
  {
    auto log = EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->Append({testing::SampleToolCallRequested(1)}).ok());
    auto reader = LogReader::Open(tmp.Sub("log"));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ASSERT_TRUE((*log)->Append({testing::SampleToolCallRequested(2)}).ok());
    ASSERT_TRUE((*reader)->CatchUp().ok());
    EXPECT_EQ((*reader)->head()->sequence, 2u);
    EXPECT_EQ(EntriesIn(temp), 0u);
  }
  if (saved != nullptr) {
    ::setenv("TMPDIR", saved_value.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}

// A reader does not depend on TMPDIR (probe AE6): one naming nothing, a file, a relative
// path or nothing at all made every read-only command abort on an uncaught exception.
TEST(OpenErrorsTest, AReaderDoesNotDependOnTmpdir) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  std::ofstream(tmp.Sub("file")) << "x";
  struct RestoreTmpdir {  // also when an assertion ends the test: later tests need it
    const char* saved = std::getenv("TMPDIR");
    std::string value = saved != nullptr ? saved : "";
    ~RestoreTmpdir() { saved != nullptr ? ::setenv("TMPDIR", value.c_str(), 1) : ::unsetenv("TMPDIR"); }
  } restore;
  for (const std::string& value : {tmp.Sub("gone"), tmp.Sub("file"), std::string("relative"), std::string()}) {
    SCOPED_TRACE("TMPDIR=" + value);
    ::setenv("TMPDIR", value.c_str(), 1);
    Result<std::unique_ptr<LogReader>> reader = Status(Code::kIo, "not opened");
    EXPECT_NO_THROW(reader = LogReader::Open(dir));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_TRUE((*reader)->Verify().ok());
    EXPECT_TRUE((*reader)->CatchUp().ok());
  }
}

}  // namespace
}  // namespace las::log
