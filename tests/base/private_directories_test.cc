// Directories for Las's private files (base/private_directories.h): each one made is exactly
// 0700, whatever the umask.
#include "base/private_directories.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace las {
namespace {

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 010000;  // no such mode
  return st.st_mode & 07777;
}

// Sets the umask for one scope (it is process-wide: restored before the next test).
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t old_;
};

// Probe FP1: a umask of 0177 (once narrowed by Las itself around a socket's bind, on another
// thread) made heads/ 0600, a directory its owner cannot enter.
TEST(PrivateDirectories, EachDirectoryMadeIsExactly0700WhateverTheUmask) {
  testing::TempDir tmp;
  for (const mode_t mask : {0177, 0777, 0000, 0022}) {
    const std::string top = tmp.Sub("m" + std::to_string(mask));
    const std::string dir = top + "/a/b";
    Result<bool> made = [&] {
      ScopedUmask scoped(mask);
      return MakePrivateDirectories(dir);
    }();
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    EXPECT_TRUE(*made);
    for (const std::string& each : {top, top + "/a", dir}) {
      EXPECT_EQ(ModeOf(each), 0700u) << each << " under umask " << mask;
    }
    std::ofstream(dir + "/file") << "x";
    EXPECT_TRUE(std::ifstream(dir + "/file").good()) << "its owner can use it";
  }
}

TEST(PrivateDirectories, AnExistingDirectoryIsLeftAsItIs) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("there");
  ASSERT_EQ(::mkdir(dir.c_str(), 0750), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0750), 0);
  Result<bool> made = MakePrivateDirectories(dir);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_FALSE(*made);
  EXPECT_EQ(ModeOf(dir), 0750u);
}

TEST(PrivateDirectories, AFileWhereADirectoryBelongsIsAnInvalidArgument) {
  testing::TempDir tmp;
  const std::string file = tmp.Sub("file");
  std::ofstream(file) << "x";
  Result<bool> made = MakePrivateDirectories(file + "/sub");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), Code::kInvalidArgument) << made.status().ToString();
}

}  // namespace
}  // namespace las
