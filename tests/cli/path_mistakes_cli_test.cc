// Paths the operator got wrong — a part of the path is a file, a symlink loop, a name too
// long — through the real executable: a usage error (exit 2, `invalid_argument`) that says
// what is wrong with the path, not an I/O error (exit 9) with the bare system text (probe
// AU8). The release files' cases are in release_paths_cli_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Lines;
using testing::RunCommand;

class PathMistakesCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(a_file()) << "not a directory\n";
    fs::create_symlink("loop", tmp_.Sub("loop"));  // a link to itself
    fs::create_directories(tmp_.Sub("run"));
    fs::permissions(tmp_.Sub("run"), fs::perms::owner_all, fs::perm_options::replace);
  }

  std::string a_file() const { return tmp_.Sub("afile"); }

  // Three paths that cannot name a directory as written.
  std::vector<std::string> Mistakes() const {
    return {a_file() + "/sub", tmp_.Sub("loop"), tmp_.Sub(std::string(300, 'n'))};
  }

  CommandResult Las(const std::vector<std::string>& args,
                    const std::string& runtime_dir = {}) const {
    std::vector<std::string> argv = {
        "/usr/bin/timeout", "30", "/usr/bin/env", "HOME=" + tmp_.Sub("home"),
        "XDG_STATE_HOME=" + tmp_.Sub("state"), "XDG_CONFIG_HOME=" + tmp_.Sub("config"),
        "XDG_RUNTIME_DIR=" + (runtime_dir.empty() ? tmp_.Sub("run") : runtime_dir),
        "LAS_RELEASE_MANIFEST=", "LAS_RELEASE_SIGNATURE=", "LAS_TRUST_STORE=",
        "LAS_RELEASE_WATERMARK=", "LAS_WORKSPACE=", LAS_EXECUTABLE};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv);
  }

  // Exit 2, one line "las VERB: invalid_argument: ..." holding `advice`.
  static void ExpectUsage(const CommandResult& run, const std::string& verb,
                          const std::string& advice, const std::string& shown) {
    EXPECT_EQ(run.exit_code, 2) << shown << ": " << run.err;
    EXPECT_EQ(run.err.rfind("las " + verb + ": invalid_argument: ", 0), 0u) << shown << ": " << run.err;
    EXPECT_NE(run.err.find(advice), std::string::npos) << shown << ": " << run.err;
    EXPECT_EQ(Lines(run.err).size(), 1u) << shown << ": " << run.err;
  }

  static std::string AdviceFor(size_t mistake) {
    static const char* const kAdvice[] = {"a file stands where the path needs a directory",
                                          "loop of symbolic links", "longer than the system allows"};
    return kAdvice[mistake];
  }

  testing::TempDir tmp_;
};

// CheckLogDirectory and the log's Inspect mapped every errno but ENOENT and EACCES to io.
TEST_F(PathMistakesCliTest, ALogPathThatCannotNameADirectoryIsAUsageError) {
  // The command's words, then its arguments: readers and writers of the log.
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"replay", {}}, {"grants", {}}, {"inspect calls", {}}, {"sources", {}}, {"events tail", {}},
      {"grant", {"bob", "--all"}}, {"rules add", {"bob", "echo__echo"}}, {"list", {}},
  };
  const std::vector<std::string> mistakes = Mistakes();
  for (const auto& [verb, extra] : commands) {
    std::vector<std::string> command;
    for (size_t at = 0, space = 0; at <= verb.size(); at = space + 1) {
      space = verb.find(' ', at);
      if (space == std::string::npos) space = verb.size();
      command.push_back(verb.substr(at, space - at));
    }
    command.insert(command.end(), extra.begin(), extra.end());
    for (size_t i = 0; i < mistakes.size(); ++i) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {"--log", mistakes[i]});
      ExpectUsage(Las(args), verb, AdviceFor(i), verb + " --log " + mistakes[i].substr(0, 60));
    }
  }
}

// The registry went through the release files' reader, whose io-error was exit 9.
TEST_F(PathMistakesCliTest, ARegistryPathThatCannotNameAFileIsAUsageError) {
  const std::vector<std::string> mistakes = {a_file() + "/reg.json", tmp_.Sub("loop"),
                                             tmp_.Sub(std::string(300, 'r'))};
  for (size_t i = 0; i < mistakes.size(); ++i) {
    const CommandResult run = Las({"list", "--log", tmp_.Sub("log"), "--registry", mistakes[i]});
    ExpectUsage(run, "list", AdviceFor(i), mistakes[i].substr(0, 60));
    EXPECT_NE(run.err.find("file-path-invalid"), std::string::npos) << run.err;
  }
}

// A registry that is not JSON named the library's exception ("[json.exception.parse_error.101]
// parse error at line 1, column 2: ...", probe BI4).
TEST_F(PathMistakesCliTest, ARegistryThatIsNotJsonSaysSoInItsOwnWords) {
  const std::string junk = tmp_.Sub("junk.json");
  std::ofstream(junk) << "not json\n";
  const CommandResult run = Las({"list", "--log", tmp_.Sub("log"), "--registry", junk});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("invalid JSON: syntax error at line 1, column 2"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("["), std::string::npos) << run.err;
}

// `las daemon` with an XDG_RUNTIME_DIR it cannot use said "io: mkdir DIR/las: No such file
// or directory", naming neither the variable nor what to do.
TEST_F(PathMistakesCliTest, ADaemonRuntimeDirThatCannotBeUsedNamesTheVariable) {
  for (const std::string& runtime : {tmp_.Sub("missing"), a_file(), a_file() + "/sub",
                                     tmp_.Sub("loop")}) {
    const std::string log = tmp_.Sub("dlog");
    const CommandResult run = Las({"daemon", "--log", log}, runtime);
    ExpectUsage(run, "daemon", "XDG_RUNTIME_DIR " + runtime, runtime);
    EXPECT_TRUE(run.out.empty()) << run.out;
  }
}

}  // namespace
}  // namespace las
