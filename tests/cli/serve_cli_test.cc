// `las serve`, `las daemon` and the other commands that share their flags, through the real
// executable: what they refuse before anything runs (an empty --registry).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Lines;
using testing::RunCommand;

class ServeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir_ = MakePrivateDir(tmp_.Sub("run"));
  }

  static std::string MakePrivateDir(const std::string& path) {
    fs::create_directories(path);
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::replace);
    return path;
  }

  // `las ARGS` under /usr/bin/env, so that these values replace the caller's (appended
  // entries would not: the first of two equal names is the one read), with a time limit:
  // a serving command that should have refused fails the test instead of hanging it.
  CommandResult Las(const std::vector<std::string>& args,
                    const std::string& runtime_dir) const {
    std::vector<std::string> argv = {
        "/usr/bin/timeout",          "30",
        "/usr/bin/env",              "HOME=" + tmp_.Sub("home"),
        "XDG_STATE_HOME=" + tmp_.Sub("state"), "XDG_CONFIG_HOME=" + tmp_.Sub("config"),
        "XDG_RUNTIME_DIR=" + runtime_dir,      "LAS_RELEASE_MANIFEST=",
        "LAS_RELEASE_SIGNATURE=",    "LAS_TRUST_STORE=",
        "LAS_RELEASE_WATERMARK=",    "LAS_WORKSPACE=",
        LAS_EXECUTABLE};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv);
  }
  CommandResult Las(const std::vector<std::string>& args) const { return Las(args, run_dir_); }

  testing::TempDir tmp_;
  std::string run_dir_;
};

// `--registry ""` (an empty variable in a script) meant the built-in default of twelve
// surfaces, so a surface the operator's registry leaves out was served (probe AE9). It is a
// usage error now, as `--log ""` is, and refused before the log is touched.
TEST_F(ServeCliTest, AnEmptyRegistryIsAUsageErrorForEveryCommandThatTakesOne) {
  const std::string log = tmp_.Sub("log");
  // The command's words, then its arguments.
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"serve", {}},   {"serve", {"--embedded"}}, {"daemon", {}},           {"list", {}},
      {"sources", {}}, {"sources inspect", {"echo"}}, {"onboarding check", {}},
  };
  for (const auto& [words, extra] : commands) {
    std::vector<std::string> args;
    std::istringstream split(words);
    for (std::string word; split >> word;) args.push_back(word);
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--log", log, "--registry", ""});
    const CommandResult run = Las(args);
    const std::string verb = "las " + words;
    EXPECT_EQ(run.exit_code, 2) << verb << ": " << run.err;
    EXPECT_EQ(run.err.rfind(verb + ": invalid_argument: --registry: the path is empty", 0), 0u)
        << verb << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << verb << ": " << run.out;
    EXPECT_FALSE(fs::exists(log)) << verb << " created the log";
  }
  const CommandResult check = Las({"check", "--registry", ""});
  EXPECT_EQ(check.exit_code, 2) << check.err;
  EXPECT_EQ(check.err.rfind("las check: invalid_argument: --registry: the path is empty", 0), 0u)
      << check.err;
  EXPECT_TRUE(check.out.empty()) << check.out;
}

}  // namespace
}  // namespace las
