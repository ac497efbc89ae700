// `las` under resource limits the system sets (probe AE3): what a library throws for want of
// a resource becomes one error line and exit 9, never an abort. The real executable under
// prlimit (util-linux).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/support/run_command.h"
#include "tests/support/sanitizers.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

TEST(ResourceLimitsTest, TooFewDescriptorsForTheLoopIsAnErrorLineAndExitNine) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "not run " << testing::kSanitizerNeedsDescriptors;
  testing::TempDir tmp;
  // 16 descriptors: enough to open the log, too few for the event loop's own.
  auto run = testing::RunCommand({"/usr/bin/prlimit", "--nofile=16", "--", LAS_EXECUTABLE, "list",
                                  "--log", tmp.Sub("log")});
  EXPECT_EQ(run.exit_code, 9) << run.err;
  EXPECT_NE(run.err.find("las list: io: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Too many open files"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("terminate called"), std::string::npos) << run.err;
}

// RocksDB opened a log's tables on up to 16 threads of the open's own; one that could not
// start aborted the process ("terminate called without an active exception": probe FH1,
// under a low RLIMIT_NPROC such as a cgroup's pids.max or systemd's TasksMax sets). Run as
// another user, whom the limit binds (root is exempt from it).
TEST(ResourceLimitsTest, ALowProcessLimitNeverAbortsOpeningTheLog) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "not run: a sanitizer starts threads of its own";
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run las as a user whom RLIMIT_NPROC binds";
  testing::TempDir tmp;
  namespace fs = std::filesystem;
  fs::permissions(tmp.path(), fs::perms::others_exec, fs::perm_options::add);
  const std::string dir = tmp.Sub("shared");
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all);
  const std::vector<std::string> env = {"HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/config"};
  const auto made = testing::RunCommand(
      testing::AsUnprivilegedUser({LAS_EXECUTABLE, "grant", "x", "--all", "--log", dir + "/log"}), env);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  for (const char* limit : {"--nproc=6:6", "--nproc=10:10"}) {
    const auto replay = testing::RunCommand(
        testing::AsUnprivilegedUser({"/usr/bin/prlimit", limit, "--", LAS_EXECUTABLE, "replay",
                                     "--log", dir + "/log", "--summary"}),
        env);
    EXPECT_TRUE(replay.exit_code == 0 || replay.exit_code == 9)
        << limit << ": exit " << replay.exit_code << " " << replay.err;
    EXPECT_EQ(replay.err.find("terminate called"), std::string::npos) << limit << ": " << replay.err;
  }
}

}  // namespace
}  // namespace las
