// Who else may change what a path names (base/path_exposure.h), and the note that says so.
#include "base/path_exposure.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace las {
namespace {

using Kind = PathExposure::Kind;

constexpr uid_t kNobody = 65534;

class PathExposureTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::chmod(tmp_.path().c_str(), 0700), 0); }

  std::string File(const std::string& name, mode_t mode) {
    const std::string path = tmp_.Sub(name);
    std::ofstream(path) << "x";
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }

  std::string Dir(const std::string& name, mode_t mode) {
    const std::string path = tmp_.Sub(name);
    EXPECT_EQ(::mkdir(path.c_str(), 0700), 0);
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }

  testing::TempDir tmp_;
};

TEST_F(PathExposureTest, APrivateFileOrDirectoryIsExposedToNobody) {
  EXPECT_EQ(ExposureOf(File("private", 0600)).kind, Kind::kNone);
  EXPECT_EQ(ExposureOf(Dir("d", 0700)).kind, Kind::kNone);
  EXPECT_EQ(ExposureOf(tmp_.Sub("d/missing")).kind, Kind::kNone);
  EXPECT_EQ(PathExposureNote(tmp_.Sub("private"), "the file", "do harm"), std::nullopt);
}

TEST_F(PathExposureTest, AFileOrDirectoryOthersMayWriteIsNamedWithItsMode) {
  const PathExposure file = ExposureOf(File("open", 0666));
  EXPECT_EQ(file.kind, Kind::kMode);
  EXPECT_EQ(ExposureNote("the file F", file, "do harm"),
            "the file F may be written by others (mode 0666), who can then do harm: chmod go-w");
  EXPECT_EQ(ExposureOf(Dir("open-dir", 0777)).kind, Kind::kMode)
      << "a directory named itself: its entries are what Las makes";
  EXPECT_EQ(ExposureOf(Dir("sticky-dir", 01777)).kind, Kind::kMode)
      << "sticky is not enough for a directory Las writes into";
}

TEST_F(PathExposureTest, ADirectoryOnTheWayOthersMayWriteExposesWhatIsInIt) {
  const std::string open = Dir("open", 0777);
  const std::string inside = open + "/file";
  std::ofstream(inside) << "x";
  ASSERT_EQ(::chmod(inside.c_str(), 0600), 0);
  const PathExposure exposure = ExposureOf(inside);
  EXPECT_EQ(exposure.kind, Kind::kOpenDirectory);
  EXPECT_EQ(exposure.where, open);
  const auto note = ExposureNote("the file F", exposure, "do harm");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("is reached through a directory others may write (" + open +
                       ", mode 0777): they can put another in its place and do harm"),
            std::string::npos)
      << *note;
}

TEST_F(PathExposureTest, AStickyDirectoryProtectsAnExistingFileButNotOneToBeMade) {
  const std::string sticky = Dir("sticky", 01777);
  const std::string there = sticky + "/there";
  std::ofstream(there) << "x";
  ASSERT_EQ(::chmod(there.c_str(), 0600), 0);
  EXPECT_EQ(ExposureOf(there).kind, Kind::kNone) << "others cannot rename over it";
  const PathExposure missing = ExposureOf(sticky + "/not-yet");
  EXPECT_EQ(missing.kind, Kind::kOpenDirectory) << "others can make it first";
  EXPECT_EQ(missing.where, sticky);
  EXPECT_EQ(ExposureOf(sticky + "/not-yet/deeper").kind, Kind::kOpenDirectory);
}

// Probe GA1: Debian gives each user a group of their own and a umask of 002, so their
// directories are group-writable with no one else in the group: not open to others. A
// group another account belongs to is.
TEST_F(PathExposureTest, GroupWriteCountsOnlyWhenTheGroupHoldsSomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another group";
  const std::string shared = Dir("shared-group", 0770);
  ASSERT_EQ(::chown(shared.c_str(), static_cast<uid_t>(-1), 65534), 0);  // nogroup: nobody's
  EXPECT_EQ(ExposureOf(shared).kind, Kind::kMode);
  EXPECT_EQ(ExposureOf(shared + "/inside").kind, Kind::kOpenDirectory);
  // Root's own group holds root alone on Debian (nothing else has gid 0 as its primary
  // group, no member listed): checked with getent, independently of the code under test.
  FILE* others = ::popen("getent group 0 | cut -d: -f4; getent passwd | awk -F: '$4==0 && $3!=0'", "r");
  ASSERT_NE(others, nullptr);
  char line[256];
  std::string anyone;
  while (std::fgets(line, sizeof line, others) != nullptr) anyone += line;
  ::pclose(others);
  if (anyone.find_first_not_of("\n") != std::string::npos) {
    GTEST_SKIP() << "group 0 holds others here: " << anyone;
  }
  const std::string own_group = Dir("own-group", 0770);
  ASSERT_EQ(::chown(own_group.c_str(), static_cast<uid_t>(-1), 0), 0);
  EXPECT_EQ(ExposureOf(own_group).kind, Kind::kNone);
  EXPECT_EQ(ExposureOf(own_group + "/inside").kind, Kind::kNone);
  ASSERT_EQ(::chmod(own_group.c_str(), 0777), 0);
  EXPECT_EQ(ExposureOf(own_group).kind, Kind::kMode) << "world write is always others'";
}

TEST_F(PathExposureTest, AnotherUsersFileDirectoryOrLinkIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files to another user";
  const std::string theirs = File("theirs", 0600);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, static_cast<gid_t>(-1)), 0);
  EXPECT_EQ(ExposureOf(theirs).kind, Kind::kOwner);
  EXPECT_NE(PathExposureNote(theirs, "the file F", "do harm")->find("may be written by another user (its owner)"),
            std::string::npos);
  // A link another user planted is named as such, not by where it leads (probe GA4).
  const std::string planted = tmp_.Sub("planted");
  std::filesystem::create_directory_symlink(tmp_.Sub("their-target"), planted);
  std::filesystem::create_directory(tmp_.Sub("their-target"));
  ASSERT_EQ(::chown(tmp_.Sub("their-target").c_str(), kNobody, static_cast<gid_t>(-1)), 0);
  ASSERT_EQ(::lchown(planted.c_str(), kNobody, static_cast<gid_t>(-1)), 0);
  EXPECT_EQ(ExposureOf(planted).kind, Kind::kForeignLink);

  const std::string their_dir = Dir("their-dir", 0755);
  ASSERT_EQ(::chown(their_dir.c_str(), kNobody, static_cast<gid_t>(-1)), 0);
  EXPECT_EQ(ExposureOf(their_dir).kind, Kind::kOwner);
  const PathExposure below = ExposureOf(their_dir + "/heads");
  EXPECT_EQ(below.kind, Kind::kOpenDirectory);
  EXPECT_TRUE(below.other_owner);

  // A link another user owns, into a private directory: its owner can retarget it.
  const std::string target = Dir("target", 0700);
  const std::string link = tmp_.Sub("link");
  std::filesystem::create_directory_symlink(target, link);
  ASSERT_EQ(::lchown(link.c_str(), kNobody, static_cast<gid_t>(-1)), 0);
  const PathExposure through = ExposureOf(link + "/file");
  EXPECT_EQ(through.kind, Kind::kForeignLink);
  EXPECT_EQ(through.where, link);
}

}  // namespace
}  // namespace las
