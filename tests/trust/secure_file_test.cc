#include "trust/secure_file.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/trust/trust_test_util.h"

namespace las::trust {
namespace {

using las::testing::TempDir;
using testing::WriteFile;

Reason ReasonOf(const std::string& path, const SecureFileOptions& options = {}) {
  VerdictOr<std::string> r = ReadSecureFile(path, "test file", options);
  return r.ok() ? Reason::kAccepted : r.verdict().reason();
}

TEST(SecureFile, ReadsOwnerOnlyRegularFile) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "hello", 0600);
  VerdictOr<std::string> r = ReadSecureFile(dir.Sub("f"), "test file");
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  EXPECT_EQ(*r, "hello");
  WriteFile(dir.Sub("ro"), "x", 0400);
  EXPECT_EQ(ReasonOf(dir.Sub("ro")), Reason::kAccepted);
}

TEST(SecureFile, SymlinkIsRefusedEvenToAGoodFile) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "hello", 0600);
  std::filesystem::create_symlink(dir.Sub("f"), dir.Sub("link"));
  EXPECT_EQ(ReasonOf(dir.Sub("link")), Reason::kFileSymlink);
}

TEST(SecureFile, DirectoryIsNotRegular) {
  TempDir dir;
  ASSERT_EQ(::mkdir(dir.Sub("d").c_str(), 0700), 0);
  EXPECT_EQ(ReasonOf(dir.Sub("d")), Reason::kFileNotRegular);
}

TEST(SecureFile, FifoIsNotRegularAndDoesNotBlock) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.Sub("fifo").c_str(), 0600), 0);
  EXPECT_EQ(ReasonOf(dir.Sub("fifo")), Reason::kFileNotRegular);
}

TEST(SecureFile, GroupReadableIsRefused) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "x", 0640);
  VerdictOr<std::string> r = ReadSecureFile(dir.Sub("f"), "test file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.verdict().reason(), Reason::kFilePermissions);
  EXPECT_NE(r.verdict().detail().find("0640"), std::string::npos) << r.verdict().detail();
}

TEST(SecureFile, OtherWritableIsRefused) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "x", 0602);
  EXPECT_EQ(ReasonOf(dir.Sub("f")), Reason::kFilePermissions);
}

TEST(SecureFile, OwnedByAnotherUserIsRefused) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "x", 0600);
  SecureFileOptions options;
  testing::MakeOwnedByAnotherUser(dir.Sub("f"), &options);
  EXPECT_EQ(ReasonOf(dir.Sub("f"), options), Reason::kFileOwner);
}

TEST(SecureFile, InjectedExpectedUidIsUsed) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "x", 0600);
  SecureFileOptions options;
  options.expected_uid = ::geteuid() + 7;
  EXPECT_EQ(ReasonOf(dir.Sub("f"), options), Reason::kFileOwner);
}

TEST(SecureFile, MissingFileIsFileMissing) {
  TempDir dir;
  EXPECT_EQ(ReasonOf(dir.Sub("nope")), Reason::kFileMissing);
}

TEST(SecureFile, LargerThanBoundIsRefused) {
  TempDir dir;
  WriteFile(dir.Sub("f"), std::string(100, 'x'), 0600);
  SecureFileOptions options;
  options.max_bytes = 99;
  EXPECT_EQ(ReasonOf(dir.Sub("f"), options), Reason::kFileTooLarge);
  options.max_bytes = 100;
  EXPECT_EQ(ReasonOf(dir.Sub("f"), options), Reason::kAccepted);
}

TEST(SecureFile, BoundedReadFollowsSymlinksButRefusesDirectories) {
  TempDir dir;
  WriteFile(dir.Sub("f"), "signed", 0644);
  std::filesystem::create_symlink(dir.Sub("f"), dir.Sub("link"));
  VerdictOr<std::string> r = ReadBoundedFile(dir.Sub("link"), "manifest", 100);
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  EXPECT_EQ(*r, "signed");
  EXPECT_EQ(ReadBoundedFile(dir.path().string(), "manifest", 100).verdict().reason(), Reason::kFileNotRegular);
  EXPECT_EQ(ReadBoundedFile(dir.Sub("f"), "manifest", 5).verdict().reason(), Reason::kFileTooLarge);
}

}  // namespace
}  // namespace las::trust
