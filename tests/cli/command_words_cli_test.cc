// Every `las` command names itself in full on stderr: "las WORDS: code: message", WORDS the
// command's words without its flags (docs/CLI.md, Exit codes). Walks every command and
// sub-command that `--help` lists, makes each fail, and reads its error lines (probes S3, T8).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using testing::CommandResult;
using testing::Lines;
using testing::RunCommand;

// The sub-commands `las WORDS --help` lists (CLI11: a "Subcommands:" heading, then one
// "  name  description" line each; a wrapped description is indented further).
std::vector<std::string> SubcommandsOf(const std::string& words) {
  std::vector<std::string> argv = {LAS_EXECUTABLE};
  std::istringstream split(words);
  for (std::string word; split >> word;) argv.push_back(word);
  argv.push_back("--help");
  const CommandResult help = RunCommand(argv);
  EXPECT_EQ(help.exit_code, 0) << words << ": " << help.err;
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : Lines(help.out)) {
    if (line == "Subcommands:" || line == "SUBCOMMANDS:") {
      in_list = true;
    } else if (in_list && line.size() > 2 && line.starts_with("  ") && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_list && !line.starts_with(" ")) {
      in_list = false;
    }
  }
  return names;
}

// Every command's words, parents before their sub-commands: "release", "release sign", ...
std::vector<std::string> EveryCommand() {
  std::vector<std::string> all;
  std::vector<std::string> pending = SubcommandsOf("");
  while (!pending.empty()) {
    const std::string words = pending.front();
    pending.erase(pending.begin());
    all.push_back(words);
    for (const std::string& sub : SubcommandsOf(words)) pending.push_back(words + " " + sub);
  }
  return all;
}

TEST(CommandWordsCliTest, EveryCommandNamesItsWordsInItsErrorLines) {
  testing::TempDir tmp;
  // A regular file where a log directory belongs: every command refuses it (not a log),
  // readers and writers alike, and nothing creates a log there.
  const std::string none = tmp.Sub("not-a-log");
  std::ofstream(none) << "not a log\n";
  const std::string no_registry = tmp.Sub("no-registry.json");
  // Arguments that make each command fail once it runs (not in flag parsing, whose lines
  // main makes): no log where one is named, a file that does not exist, a release not
  // configured, a bad request.
  const std::map<std::string, std::vector<std::string>> failing = {
      {"replay", {"--log", none}},
      {"list", {"--registry", no_registry}},
      {"inspect", {"--log", none}},
      {"inspect calls", {"--log", none}},
      {"inspect catalog", {"--log", none}},
      {"inspect watermarks", {"--log", none}},
      {"inspect sources", {"--log", none}},
      {"inspect sessions", {"--log", none}},
      {"inspect state", {"--log", none}},
      {"inspect messages", {"--log", none}},
      {"inspect handles", {"--log", none}},
      {"release", {}},
      {"release keygen", {}},
      {"release draft", {"--surface", "echo", "--", "/usr/bin/python3"}},
      {"release sign", {"--secret-key", tmp.Sub("no.key"), "--bump"}},
      {"release verify", {}},
      {"check", {"--registry", no_registry}},
      {"onboarding", {"--log", none}},
      {"onboarding status", {"--log", none}},
      {"onboarding check", {"--log", none}},
      {"onboarding mark", {"nosuch", "--log", none}},
      {"onboarding reset", {"nosuch", "--log", none}},
      {"sources", {"--log", none}},
      {"sources inspect", {"nosuch", "--log", none}},
      {"sources enable", {"nosuch", "--log", none}},
      {"sources disable", {"nosuch", "--log", none}},
      {"events", {}},
      {"events tail", {"--log", none}},
      {"grant", {"someone", "--tool", "a__b", "--tool", "c__d", "--digest", std::string(64, '0')}},
      {"revoke", {"nosuch", "--log", none}},
      {"grants", {"--log", none}},
      {"rules", {"--log", none}},
      {"rules list", {"--log", none}},
      {"rules add", {"someone", "a__b", "--log", none}},
      {"rules forget", {"nosuch", "--log", none}},
  };
  // They serve until stdin ends; they have no sub-commands and name themselves alone.
  const std::set<std::string> not_run = {"serve", "daemon"};
  // Nothing from the caller's environment: no release files, no log, no daemon.
  const std::vector<std::string> env = {
      "HOME=" + tmp.Sub("home"), "XDG_STATE_HOME=" + tmp.Sub("state"), "XDG_CONFIG_HOME=" + tmp.Sub("config"),
      "XDG_RUNTIME_DIR=" + tmp.Sub("run"), "LAS_RELEASE_MANIFEST=", "LAS_RELEASE_SIGNATURE=",
      "LAS_TRUST_STORE=", "LAS_RELEASE_WATERMARK=", "LAS_WORKSPACE="};

  const std::vector<std::string> commands = EveryCommand();
  ASSERT_GT(commands.size(), 20u);
  for (const std::string& words : commands) {
    if (not_run.contains(words)) continue;
    auto args = failing.find(words);
    ASSERT_NE(args, failing.end()) << "las " << words << " is new: give it failing arguments here";
    std::vector<std::string> argv = {LAS_EXECUTABLE};
    std::istringstream split(words);
    for (std::string word; split >> word;) argv.push_back(word);
    argv.insert(argv.end(), args->second.begin(), args->second.end());
    const CommandResult run = RunCommand(argv, env);
    EXPECT_NE(run.exit_code, 0) << "las " << words << " was meant to fail: " << run.out;
    bool named = false;
    for (const std::string& line : Lines(run.err)) {
      if (!line.starts_with("las ")) continue;  // a row or a hint, not an error line
      named = true;
      EXPECT_TRUE(line.starts_with("las " + words + ": ")) << "las " << words << " said: " << line;
    }
    EXPECT_TRUE(named) << "las " << words << " printed no error line: " << run.err;
  }
}

// `las --help` and `las --version` run no command: a failure of their output names none
// (it said "las help:", a command that does not exist; probe AB6).
TEST(CommandWordsCliTest, HelpAndVersionWithoutCommandNameNone) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  for (const char* flag : {"--help", "--version"}) {
    const CommandResult run =
        RunCommand({"/bin/sh", "-c", "exec " + std::string(LAS_EXECUTABLE) + " " + flag + " >/dev/full"});
    EXPECT_EQ(run.exit_code, 9) << flag;
    EXPECT_EQ(run.err.rfind("las: io: writing to standard output failed", 0), 0u) << run.err;
  }
  const CommandResult sub = RunCommand(
      {"/bin/sh", "-c", "exec " + std::string(LAS_EXECUTABLE) + " release --help >/dev/full"});
  EXPECT_EQ(sub.err.rfind("las release: io:", 0), 0u) << sub.err;
}

}  // namespace
}  // namespace las
