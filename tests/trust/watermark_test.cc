#include "trust/watermark.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "tests/trust/trust_test_util.h"

namespace las::trust {
namespace {

const std::string kKey = "0123456789abcdef";
const Sha256Digest kA = Sha256(std::string_view("a"));
const Sha256Digest kB = Sha256(std::string_view("b"));

Watermarks At(uint64_t sequence, const Sha256Digest& digest) {
  Watermarks w;
  w.by_key[kKey] = {sequence, digest};
  return w;
}

Reason Decide(const Watermarks& w, uint64_t sequence, const Sha256Digest& digest) {
  VerdictOr<WatermarkStep> step = DecideWatermark(w, kKey, sequence, digest);
  return step.ok() ? Reason::kAccepted : step.verdict().reason();
}

// Asked before admission: a watermark that could not be replaced refuses the release.
TEST(Watermark, WritableMeansATemporaryFileCanBeMadeBesideItAndNoneIsLeft) {
  las::testing::TempDir tmp;
  EXPECT_TRUE(CheckWatermarkWritable(tmp.Sub("watermark.json")).ok());
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << "the probe file is removed";
  Verdict missing = CheckWatermarkWritable(tmp.Sub("no-such-dir") + "/watermark.json");
  EXPECT_EQ(missing.reason(), Reason::kIoError);
}

// A directory a file can be made in but that cannot be opened for reading would let the
// release be served and its commit fail (the commit's lock and fsync open the directory;
// probe AN1): it is refused before admission. Run as another user in a child, since root
// passes any mode.
TEST(Watermark, ADirectoryThatCannotBeOpenedForReadingIsNotWritable) {
  las::testing::TempDir tmp;
  ::chmod(tmp.path().c_str(), 0711);  // reachable by the other user
  const std::string dir = tmp.Sub("write-and-search-only");
  ASSERT_EQ(::mkdir(dir.c_str(), 0300), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::geteuid() == 0 &&
        (::chown(dir.c_str(), 65534, 65534) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      ::_exit(2);
    }
    const Verdict verdict = CheckWatermarkWritable(dir + "/watermark.json");
    ::_exit(verdict.reason() == Reason::kIoError ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: called writable; 2: could not become another user";
}

TEST(Watermark, LowerSequenceIsRollback) { EXPECT_EQ(Decide(At(7, kA), 6, kA), Reason::kRollback); }

TEST(Watermark, SameSequenceOtherBytesIsConflict) { EXPECT_EQ(Decide(At(7, kA), 7, kB), Reason::kConflict); }

TEST(Watermark, SameSequenceSameBytesIsUnchanged) {
  VerdictOr<WatermarkStep> step = DecideWatermark(At(7, kA), kKey, 7, kA);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(*step, WatermarkStep::kUnchanged);
}

TEST(Watermark, HigherSequenceAdvances) {
  VerdictOr<WatermarkStep> step = DecideWatermark(At(7, kA), kKey, 8, kB);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(*step, WatermarkStep::kAdvance);
}

TEST(Watermark, UnknownKeyStartsAtZero) {
  VerdictOr<WatermarkStep> step = DecideWatermark(At(7, kA), "fedcba9876543210", 1, kB);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(*step, WatermarkStep::kAdvance);
}

TEST(Watermark, AtomicWriteRoundTripsWithMode0600AndNoTempFile) {
  las::testing::TempDir dir;
  Watermarks w = At(7, kA);
  w.by_key["fedcba9876543210"] = {3, kB};
  ASSERT_TRUE(WriteWatermarksAtomically(dir.Sub("wm"), w).ok());
  VerdictOr<Watermarks> back = LoadWatermarks(dir.Sub("wm"));
  ASSERT_TRUE(back.ok()) << back.verdict().ToString();
  EXPECT_TRUE(back->file_existed);
  EXPECT_EQ(back->by_key, w.by_key);
  struct stat st {};
  ASSERT_EQ(::stat(dir.Sub("wm").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(Watermark, AtomicWriteReplacesAGroupReadableFileWithA0600One) {
  las::testing::TempDir dir;
  testing::WriteFile(dir.Sub("wm"), "junk", 0644);
  ASSERT_TRUE(WriteWatermarksAtomically(dir.Sub("wm"), At(1, kA)).ok());
  EXPECT_TRUE(LoadWatermarks(dir.Sub("wm")).ok());
}

TEST(Watermark, WriteIntoMissingDirectoryFailsWithIoError) {
  las::testing::TempDir dir;
  Verdict v = WriteWatermarksAtomically(dir.Sub("no/such/wm"), At(1, kA));
  EXPECT_EQ(v.reason(), Reason::kIoError) << v.ToString();
}

TEST(Watermark, MissingFileReadsEmpty) {
  las::testing::TempDir dir;
  VerdictOr<Watermarks> w = LoadWatermarks(dir.Sub("wm"));
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->file_existed);
  EXPECT_TRUE(w->by_key.empty());
}

TEST(Watermark, GroupReadableWatermarkIsRejected) {
  las::testing::TempDir dir;
  ASSERT_TRUE(WriteWatermarksAtomically(dir.Sub("wm"), At(1, kA)).ok());
  ASSERT_EQ(::chmod(dir.Sub("wm").c_str(), 0640), 0);
  EXPECT_EQ(LoadWatermarks(dir.Sub("wm")).verdict().reason(), Reason::kFilePermissions);
}

TEST(Watermark, WatermarkOwnedByAnotherUserIsRejected) {
  las::testing::TempDir dir;
  ASSERT_TRUE(WriteWatermarksAtomically(dir.Sub("wm"), At(1, kA)).ok());
  SecureFileOptions options;
  testing::MakeOwnedByAnotherUser(dir.Sub("wm"), &options);
  EXPECT_EQ(LoadWatermarks(dir.Sub("wm"), options).verdict().reason(), Reason::kFileOwner);
}

TEST(Watermark, MalformedContentIsWatermarkInvalid) {
  for (const char* text : {"{}", "{\"schema_version\":1,\"keys\":{\"XYZ\":{}}}",
                           "{\"schema_version\":1,\"keys\":{\"0123456789abcdef\":{\"sequence\":0,"
                           "\"manifest_sha256\":\"00\"}}}",
                           "{\"schema_version\":1,\"keys\":{},\"keys\":{}}"}) {
    EXPECT_EQ(ParseWatermarks(text).verdict().reason(), Reason::kWatermarkInvalid) << text;
  }
}

TEST(Watermark, CommitKeepsOtherKeysAndSkipsWriteWhenUnchanged) {
  las::testing::TempDir dir;
  Watermarks w = At(7, kA);
  w.by_key["fedcba9876543210"] = {3, kB};
  ASSERT_TRUE(WriteWatermarksAtomically(dir.Sub("wm"), w).ok());
  ASSERT_TRUE(CommitWatermark({dir.Sub("wm"), kKey, {8, kB}, WatermarkStep::kAdvance}).ok());
  VerdictOr<Watermarks> back = LoadWatermarks(dir.Sub("wm"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Find(kKey)->sequence, 8u);
  EXPECT_EQ(back->Find("fedcba9876543210")->sequence, 3u);
  // A commit whose decision is now "unchanged" does not rewrite the file.
  struct stat before {};
  ASSERT_EQ(::stat(dir.Sub("wm").c_str(), &before), 0);
  ASSERT_TRUE(CommitWatermark({dir.Sub("wm"), kKey, {8, kB}, WatermarkStep::kAdvance}).ok());
  struct stat after {};
  ASSERT_EQ(::stat(dir.Sub("wm").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
}

}  // namespace
}  // namespace las::trust
