// `las` under resource limits the system sets (probe AE3): what a library throws for want of
// a resource becomes one error line and exit 9, never an abort. The real executable under
// prlimit (util-linux).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace las
