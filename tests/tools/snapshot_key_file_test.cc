// The snapshot key file (tools/snapshot_key_file.h): made once, private, read back the same;
// a file that anyone else could have written or read is refused.
#include "tools/snapshot_key_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tools/kept_head_file.h"

namespace las::tools {
namespace {

void WriteFile(const std::string& path, const std::string& bytes, mode_t mode) {
  std::ofstream(path, std::ios::binary) << bytes;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

// One kept-head file per log directory and key: two keys in one directory do not share one
// (probe DK2: the second key's writer overwrote the first's record unjudged); the names
// of one directory agree.
TEST(KeptHeadFile, OneFilePerLogDirectoryAndKey) {
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.Sub("logs/a"));
  log::SnapshotKey one;
  one.fill(1);
  log::SnapshotKey two;
  two.fill(2);
  const std::string key_file = tmp.Sub("config/las/snapshot.key");
  const std::string a = KeptHeadFile(key_file, one, tmp.Sub("logs/a"));
  EXPECT_EQ(a.rfind(tmp.Sub("config/las/heads/"), 0), 0u) << a;
  EXPECT_NE(a, KeptHeadFile(key_file, two, tmp.Sub("logs/a")));
  EXPECT_NE(a, KeptHeadFile(key_file, one, tmp.Sub("logs/b")));
  EXPECT_EQ(a, KeptHeadFile(key_file, one, tmp.Sub("logs/a/")));
  EXPECT_EQ(a, KeptHeadFile(key_file, one, tmp.Sub("logs/b/../a")));
}

TEST(SnapshotKeyFile, DefaultPlace) {
  EXPECT_EQ(DefaultSnapshotKeyFile("/cfg", "/home/u"), "/cfg/las/snapshot.key");
  EXPECT_EQ(DefaultSnapshotKeyFile("relative", "/home/u"), "/home/u/.config/las/snapshot.key");
  EXPECT_EQ(DefaultSnapshotKeyFile("", "/home/u"), "/home/u/.config/las/snapshot.key");
  EXPECT_EQ(DefaultSnapshotKeyFile("", "not-absolute"), "");
}

TEST(SnapshotKeyFile, MadeOnceThenReadBack) {
  testing::TempDir dir;
  const std::string path = dir.Sub("a/b/snapshot.key");
  EXPECT_EQ(ReadSnapshotKey(path).status().code(), Code::kNotFound);
  auto made = ReadOrCreateSnapshotKey(path);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_NE(*made, log::SnapshotKey{});
  auto again = ReadOrCreateSnapshotKey(path, [](uint8_t*, size_t) { FAIL() << "no new key"; });
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *made);
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 32);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.Sub("a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.Sub("a/b")),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(SnapshotKeyFile, ConcurrentCreatorsEndWithOneKey) {
  testing::TempDir dir;
  const std::string path = dir.Sub("snapshot.key");
  std::vector<log::SnapshotKey> keys(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < keys.size(); ++i) {
    threads.emplace_back([&, i] {
      auto key = ReadOrCreateSnapshotKey(path);
      if (key.ok()) keys[i] = *key;
    });
  }
  for (auto& thread : threads) thread.join();
  auto stored = ReadSnapshotKey(path);
  ASSERT_TRUE(stored.ok());
  for (const auto& key : keys) EXPECT_EQ(key, *stored);
}

TEST(SnapshotKeyFile, UnsafeOrMalformedFilesAreRefused) {
  testing::TempDir dir;
  const std::string open_to_others = dir.Sub("open.key");
  WriteFile(open_to_others, std::string(32, 'k'), 0644);
  EXPECT_EQ(ReadSnapshotKey(open_to_others).status().code(), Code::kDenied);
  EXPECT_EQ(ReadOrCreateSnapshotKey(open_to_others).status().code(), Code::kDenied);

  const std::string short_key = dir.Sub("short.key");
  WriteFile(short_key, std::string(31, 'k'), 0600);
  auto refused = ReadSnapshotKey(short_key);
  EXPECT_EQ(refused.status().code(), Code::kCorruption);
  EXPECT_NE(refused.status().message().find(short_key), std::string::npos);

  const std::string link = dir.Sub("link.key");
  WriteFile(dir.Sub("target.key"), std::string(32, 'k'), 0600);
  ASSERT_EQ(::symlink(dir.Sub("target.key").c_str(), link.c_str()), 0);
  EXPECT_EQ(ReadSnapshotKey(link).status().code(), Code::kDenied);

  // A directory named as the key is the operator's slip: a bad argument (probe X6).
  EXPECT_EQ(ReadSnapshotKey(dir.path()).status().code(), Code::kInvalidArgument);
}

// Probes DC3, DD6: a key whoever writes the log can replace is not used, however its path
// is written (relative, `..`, through a symlink), by the server or by the CLI's folds.
TEST(SnapshotKeyFile, AKeyInsideTheLogDirectoryIsNotUsed) {
  testing::TempDir tmp;
  const std::string log = tmp.Sub("log");
  std::filesystem::create_directories(log);
  std::filesystem::create_symlink(log, tmp.Sub("link"));
  for (const std::string& inside :
       {log + "/k", log + "/sub/../k", tmp.Sub("link") + "/k",
        std::filesystem::relative(log + "/k").string()}) {
    EXPECT_TRUE(KeyFileInsideLog(inside, log)) << inside;
  }
  for (const std::string& outside : {tmp.Sub("k"), log + "/../k", tmp.Sub("logx") + "/k"}) {
    EXPECT_FALSE(KeyFileInsideLog(outside, log)) << outside;
  }
  auto key = ReadOrCreateSnapshotKey(log + "/k");
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_FALSE(UsableSnapshotKey(log + "/k", log).has_value());
  EXPECT_TRUE(UsableSnapshotKey(log + "/k", tmp.Sub("other")).has_value());
}

}  // namespace
}  // namespace las::tools
