// The writer's rule for the log directory (log/log_directory.h; probe AE5): a directory
// owned by another user or writable by group or others is refused before anything is read
// or written there; one that group or others may only read is used, and noted; readers
// apply no rule.
#include "log/log_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "tests/log/closed_log.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string MakeDirectory(const testing::TempDir& tmp, mode_t mode) {
  const std::string dir = tmp.Sub("log");
  EXPECT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(::chmod(dir.c_str(), mode), 0);  // exactly `mode`, whatever the umask
  return dir;
}

TEST(LogDirectoryTest, ANewLogDirectoryIsTheOwnersAlone) {
  testing::TempDir tmp;
  WriteClosedLog(tmp.Sub("log"));
  struct stat st {};
  ASSERT_EQ(::stat(tmp.Sub("log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  auto access = CheckLogDirectory(tmp.Sub("log"));
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  EXPECT_EQ(*access, LogDirectoryAccess::kOwnerOnly);
  EXPECT_FALSE(LogDirectoryNote(tmp.Sub("log")).has_value());
}

// Anyone who may write the directory could delete or swap the table files: refused (exit 8)
// with the fix, and nothing is made in it — neither in an empty one nor in an existing log.
TEST(LogDirectoryTest, ADirectoryWritableByGroupOrOthersIsRefusedBeforeAnythingIsWritten) {
  for (const mode_t mode : {0770, 0720, 0707, 0702, 0777, 01777}) {
    SCOPED_TRACE(mode);
    testing::TempDir tmp;
    const std::string dir = MakeDirectory(tmp, mode);
    auto log = EventLog::Open(dir);
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.status().code(), Code::kDenied) << log.status().ToString();
    EXPECT_TRUE(Has(log.status().message(), "writable by group or others")) << log.status().ToString();
    EXPECT_TRUE(Has(log.status().message(), "chmod 700")) << log.status().ToString();
    EXPECT_TRUE(fs::is_empty(dir)) << "the refused directory was written to";
  }
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  ASSERT_EQ(::chmod(dir.c_str(), 0775), 0);
  const auto before = testing::FileContents(dir);
  auto log = EventLog::Open(dir);
  EXPECT_EQ(log.status().code(), Code::kDenied) << log.status().ToString();
  EXPECT_TRUE(testing::FileContents(dir) == before) << "the refused log was written to";
  // The fix the message names works.
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  EXPECT_TRUE(EventLog::Open(dir).ok());
}

TEST(LogDirectoryTest, ADirectoryOwnedByAnotherUserIsRefusedBeforeAnythingIsWritten) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user here";
  for (const bool existing_log : {false, true}) {
    SCOPED_TRACE(existing_log);
    testing::TempDir tmp;
    const std::string dir = tmp.Sub("log");
    if (existing_log) {
      ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
    } else {
      ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    }
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
    const auto before = testing::FileContents(dir);
    auto log = EventLog::Open(dir);
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.status().code(), Code::kDenied) << log.status().ToString();
    EXPECT_TRUE(Has(log.status().message(), "belongs to uid 65534")) << log.status().ToString();
    EXPECT_TRUE(Has(log.status().message(), "chown")) << log.status().ToString();
    EXPECT_TRUE(testing::FileContents(dir) == before) << "the refused directory was written to";
    EXPECT_EQ(CheckLogDirectory(dir).status().code(), Code::kDenied);
  }
}

// An auditors' group may be meant to read the log: used, but the server start gets a note
// naming the path and the fix.
TEST(LogDirectoryTest, ADirectoryOthersMayOnlyReadIsUsedAndNoted) {
  for (const mode_t mode : {0750, 0755, 0701, 0710, 0705}) {
    SCOPED_TRACE(mode);
    testing::TempDir tmp;
    const std::string dir = MakeDirectory(tmp, mode);
    {
      auto log = EventLog::Open(dir);
      ASSERT_TRUE(log.ok()) << log.status().ToString();
      ASSERT_TRUE((*log)->Append({testing::SampleToolCallRequested(1)}).ok());
    }
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode) << "an existing directory keeps its mode";
    auto access = CheckLogDirectory(dir);
    ASSERT_TRUE(access.ok()) << access.status().ToString();
    EXPECT_EQ(*access, LogDirectoryAccess::kReadableByOthers);
    auto note = LogDirectoryNote(dir);
    ASSERT_TRUE(note.has_value());
    EXPECT_TRUE(Has(*note, dir)) << *note;
    EXPECT_TRUE(Has(*note, "chmod 700")) << *note;
    EXPECT_EQ(note->find('\n'), std::string::npos) << "one line";
  }
}

// The note is one line whatever the path holds.
TEST(LogDirectoryTest, TheNoteEscapesThePath) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("lo\ng\x1b[1m");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  auto note = LogDirectoryNote(dir);
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(note->find('\n'), std::string::npos) << *note;
  EXPECT_EQ(note->find('\x1b'), std::string::npos) << *note;
}

// An auditor reads a log whatever its directory's mode or owner: followers apply no rule.
TEST(LogDirectoryTest, AReaderAppliesNoRule) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ASSERT_NO_FATAL_FAILURE(WriteClosedLog(dir));
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  }
  auto reader = LogReader::Open(dir);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Verify().ok());
}

TEST(LogDirectoryTest, WhatIsNoDirectoryIsNotJudged) {
  testing::TempDir tmp;
  EXPECT_EQ(CheckLogDirectory(tmp.Sub("missing")).status().code(), Code::kNotFound);
  std::ofstream(tmp.Sub("file")) << "x";
  EXPECT_EQ(CheckLogDirectory(tmp.Sub("file")).status().code(), Code::kNotALog);
  EXPECT_FALSE(LogDirectoryNote(tmp.Sub("missing")).has_value());
}

}  // namespace
}  // namespace las::log
