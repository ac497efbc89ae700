// The values of `las` flags as the real executable parses them: a flag whose value was left
// out must not take the next flag or the `--` as its value (probe BI1), and the usage
// errors around values name their flag (probes BI5, BI6).
#include <gtest/gtest.h>

#include <filesystem>
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

class FlagValuesCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(cwd());
    fs::create_directories(tmp_.Sub("run"));
    fs::permissions(tmp_.Sub("run"), fs::perms::owner_all, fs::perm_options::replace);
  }

  // The scratch directory every command runs in: where a swallowed flag became a path.
  std::string cwd() const { return tmp_.Sub("cwd"); }

  // `las ARGS` in cwd(), with private XDG directories and no release configured, under a
  // time limit: a command that should have refused but serves fails instead of hanging.
  CommandResult Las(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {
        "/usr/bin/timeout", "30", "/usr/bin/env", "-C", cwd(),
        "HOME=" + tmp_.Sub("home"), "XDG_STATE_HOME=" + tmp_.Sub("state"),
        "XDG_CONFIG_HOME=" + tmp_.Sub("config"), "XDG_RUNTIME_DIR=" + tmp_.Sub("run"),
        "LAS_RELEASE_MANIFEST=", "LAS_RELEASE_SIGNATURE=", "LAS_TRUST_STORE=",
        "LAS_RELEASE_WATERMARK=", "LAS_WORKSPACE=", LAS_EXECUTABLE};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv);
  }

  // Nothing was made in the scratch directory (no log `./--lazy`, no manifest `./--`).
  void ExpectNothingMade(const std::string& what) const {
    EXPECT_TRUE(fs::is_empty(cwd())) << what << " made " << fs::directory_iterator(cwd())->path();
  }

  testing::TempDir tmp_;
};

// `las serve --log --lazy` served into a new log `./--lazy` and was not lazy; `las grant
// bob --all --log --json` put a grant into a new log `./--json`; `release draft --manifest
// -- CMD` wrote a manifest named `--`. Each is a usage error naming the flag now, with the
// way to give a path that does begin with a dash.
TEST_F(FlagValuesCliTest, APathFlagWithoutItsValueDoesNotTakeTheNextFlag) {
  const std::vector<std::vector<std::string>> cases = {
      {"serve", "--log", "--lazy"},
      {"grant", "bob", "--all", "--log", "--json"},
      {"inspect", "calls", "--log", "--json"},
      {"events", "tail", "--log", "-n", "5"},
      {"list", "--registry", "--log", tmp_.Sub("log")},
      {"release", "draft", "--surface", "echo", "--manifest", "--", "/usr/bin/python3", "x.py"},
      {"release", "draft", "--surface", "echo", "--manifest", "./m.json", "--cwd", "--",
       "/usr/bin/python3", "x.py"},
      {"release", "verify", "--manifest", "-"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::string shown;
    for (const std::string& word : args) shown += " " + word;
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 2) << shown << ": " << run.err;
    EXPECT_NE(run.err.find(": invalid_argument: --"), std::string::npos) << shown << ": " << run.err;
    EXPECT_NE(run.err.find("a path that begins with '-' as ./"), std::string::npos)
        << shown << ": " << run.err;
    EXPECT_EQ(Lines(run.err).size(), 1u) << shown << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << shown << ": " << run.out;
    ExpectNothingMade(shown);
  }
  const CommandResult serve = Las({"serve", "--log", "--lazy"});
  EXPECT_EQ(serve.err.rfind("las serve: invalid_argument: --log: '--lazy' ", 0), 0u) << serve.err;
  EXPECT_NE(serve.err.find("./--lazy"), std::string::npos) << serve.err;
}

// The way out the message names: a path that begins with a dash, given as ./-x, is a path.
TEST_F(FlagValuesCliTest, APathThatBeginsWithADashIsGivenAsDotSlash) {
  const CommandResult run = Las({"replay", "--log", "./--lazy"});
  EXPECT_EQ(run.exit_code, 4) << "read as a path, and there is no log there: " << run.err;
  EXPECT_NE(run.err.find("./--lazy"), std::string::npos) << run.err;
}

// Other flags with a value take no flag either (`--agent --summary` filtered by an agent
// named "--summary", and the summary was not printed), but a negative number still reaches
// its flag's own check, which says what the range is.
TEST_F(FlagValuesCliTest, AValueFlagDoesNotTakeAFlagButANumberKeepsItsOwnMessage) {
  const std::string log = tmp_.Sub("log");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", "--log", log, "--agent", "--summary"},
        std::vector<std::string>{"grants", "--log", log, "--agent", "-"},
        std::vector<std::string>{"sources", "disable", "echo", "--log", log, "--reason", "--json"},
        std::vector<std::string>{"replay", "--log", log, "--surface", "-h"}}) {
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 2) << args[0] << ": " << run.err;
    EXPECT_NE(run.err.find("a flag or '--' is never one"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(log)) << run.err;
  }
  const CommandResult negative = Las({"replay", "--log", log, "--from", "-1"});
  EXPECT_EQ(negative.exit_code, 2) << negative.err;
  EXPECT_NE(negative.err.find("--from: must be a whole number"), std::string::npos) << negative.err;
}

// A huge value quoted in an error keeps the line a terminal can show: its start and end
// around what was left out (probe IZ1: a 100 KB value made a 100 KB stderr line).
TEST_F(FlagValuesCliTest, AHugeValueInAnErrorIsShortenedInItsMiddle) {
  const std::string log = tmp_.Sub("log");
  ASSERT_EQ(Las({"grant", "bob", "--all", "--log", log}).exit_code, 0) << "a log to look in";
  const std::string huge(100000, 'x');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", "--log", log, "--from", huge},
        std::vector<std::string>{"grant", "bob", "--tool", huge, "--log", log},
        std::vector<std::string>{"inspect", "calls", "--call", huge, "--log", log},
        std::vector<std::string>{"onboarding", "mark", huge, "--log", log},
        // A check row's detail on stdout (probe JF3).
        std::vector<std::string>{"release", "verify", "--manifest", "/dev/null", "--trust-store",
                                 "/x/" + huge}}) {
    const CommandResult run = Las(args);
    EXPECT_NE(run.exit_code, 0) << args[0];
    size_t longest = 0;
    for (const std::string* output : {&run.out, &run.err}) {
      for (size_t start = 0; start < output->size();) {
        const size_t end = std::min(output->find('\n', start), output->size());
        longest = std::max(longest, end - start);
        start = end + 1;
      }
    }
    EXPECT_LT(longest, 2200u) << args[0] << ": " << run.err.substr(0, 300);
    EXPECT_NE((run.out + run.err).find("bytes left out"), std::string::npos)
        << args[0] << ": " << run.err.substr(0, 300);
  }
}

// A value a choice or an on/off flag does not take is quoted in plain words, not CLI11's
// "--durability:  not in {...}" or "Could not convert: --lazy = maybe" (probe IZ4).
TEST_F(FlagValuesCliTest, AValueAChoiceOrAnOnOffFlagDoesNotTakeIsQuoted) {
  const std::string log = tmp_.Sub("log");
  const CommandResult empty = Las({"serve", "--log", log, "--durability", ""});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find(R"(--durability: "" is not one of {strict,relaxed})"), std::string::npos) << empty.err;
  const CommandResult other = Las({"serve", "--log", log, "--durability", "fast"});
  EXPECT_NE(other.err.find(R"(--durability: "fast" is not one of {strict,relaxed})"), std::string::npos) << other.err;
  const CommandResult on_off = Las({"serve", "--log", log, "--lazy=maybe"});
  EXPECT_EQ(on_off.exit_code, 2);
  EXPECT_NE(on_off.err.find(R"(--lazy: "maybe" is not a value it takes (an on/off flag)"), std::string::npos)
      << on_off.err;
  EXPECT_FALSE(fs::exists(log));
}

// A value joined to its flag by '=' was given on purpose: `--reason=--json`, `--log=-x`
// and `--surface=--s` are values, however they look (they were refused with no way to give
// them but ./-x for a path).
TEST_F(FlagValuesCliTest, AValueJoinedToItsFlagByAnEqualsSignIsTakenWhateverItLooksLike) {
  const std::string log = tmp_.Sub("log");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"sources", "disable", "echo", "--log", log, "--reason=--json"},
        std::vector<std::string>{"replay", "--log=--lazy"}}) {
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 4) << "taken, and there is no log there: " << run.err;
    EXPECT_EQ(run.err.find("never one"), std::string::npos) << run.err;
  }
  const CommandResult grant = Las({"grant", "bob", "--all", "--log", log});
  ASSERT_EQ(grant.exit_code, 0) << grant.err;
  const CommandResult replay = Las({"replay", "--log", log, "--surface=--summary"});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_TRUE(replay.out.empty()) << "no event of a surface named --summary: " << replay.out;
  // Not joined, it is still refused, and the message names the way to give it.
  const CommandResult apart = Las({"replay", "--log", log, "--surface", "--summary"});
  EXPECT_EQ(apart.exit_code, 2) << apart.err;
  EXPECT_NE(apart.err.find("joined by '=': --surface=--summary"), std::string::npos) << apart.err;
}

// `--from=` with nothing after the '=' gives no value: CLI11 gave the flag the next word
// (`replay --from= 5` read from event 5, `grant --log= bob` took bob for the log: probe EW4).
TEST_F(FlagValuesCliTest, AnEmptyJoinedValueDoesNotTakeTheNextWord) {
  const std::string log = tmp_.Sub("log");
  const CommandResult from = Las({"replay", "--log", log, "--from=", "5"});
  EXPECT_EQ(from.exit_code, 2) << from.err;
  EXPECT_NE(from.err.find("'5' follows an empty --from=, which gives no value: write --from=5 "
                          "or --from 5"),
            std::string::npos)
      << from.err;
  const CommandResult grant = Las({"grant", "--log=", "bob", "--all"});
  EXPECT_EQ(grant.exit_code, 2) << grant.err;
  EXPECT_NE(grant.err.find("follows an empty --log="), std::string::npos) << grant.err;
  EXPECT_FALSE(fs::exists(tmp_.Sub("bob"))) << "no log made of the next word";
  const CommandResult alone = Las({"replay", "--log", log, "--snapshot-key="});
  EXPECT_EQ(alone.exit_code, 2) << "an empty joined value is still a usage error: " << alone.err;
  // Last on the line, it says so, not CLI11's "1 required UINT:UINT missing" (probe FE2).
  const CommandResult last = Las({"replay", "--log", log, "--from="});
  EXPECT_EQ(last.exit_code, 2) << last.err;
  EXPECT_NE(last.err.find("--from: its value is missing (see"), std::string::npos) << last.err;
}

// An on/off flag given as `--all=` was read as on: `grant x --all=` (an unset `--all=$ROOT`)
// issued a root grant, `serve --admin=` served the admin tools (probe FD1). Refused now.
TEST_F(FlagValuesCliTest, AnEmptyJoinedValueOfAnOnOffFlagIsRefused) {
  const std::string log = tmp_.Sub("log");
  const CommandResult grant = Las({"grant", "bob", "--all=", "--log", log});
  EXPECT_EQ(grant.exit_code, 2) << grant.err;
  EXPECT_NE(grant.err.find("--all: nothing after the '=' says on or off: write --all alone for "
                           "on, or leave it out"),
            std::string::npos)
      << grant.err;
  EXPECT_FALSE(fs::exists(log)) << "no grant issued";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"serve", "--admin=", "--log", log},
        std::vector<std::string>{"replay", "--log", log, "--summary="}}) {
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find("says on or off"), std::string::npos) << run.err;
  }
  const CommandResult on = Las({"grant", "bob", "--all=true", "--log", log});
  EXPECT_EQ(on.exit_code, 0) << "a value after the '=' is taken: " << on.err;
}

// `--log ""` said "(with no HOME or XDG_STATE_HOME there is no default)": about another
// case, and untrue with a HOME. It says what to do with the flag given empty (probe BI6).
TEST_F(FlagValuesCliTest, AnEmptyLogFlagSaysToLeaveItOut) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"grants", "--log", ""}, std::vector<std::string>{"serve", "--log", ""},
        std::vector<std::string>{"replay", "--log", ""}}) {
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find("--log: the path is empty; leave the flag out for the default log "
                           "directory"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("no HOME"), std::string::npos) << run.err;
  }
}

// `sources disable ID --reason ""` recorded an empty reason (probe BI6): refused now.
TEST_F(FlagValuesCliTest, AnEmptyDisableReasonIsRefused) {
  const std::string log = tmp_.Sub("log");
  const CommandResult run = Las({"sources", "disable", "echo", "--log", log, "--reason", ""});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("--reason: the reason is empty"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(log));
}

// The words not expected are named in the order given (probe EW5: "x --reason"), also
// those given before the command's name (probe FD3: "/tmp/x --log"), with a hint for a flag.
TEST_F(FlagValuesCliTest, WordsNotExpectedAreNamedInTheirOrder) {
  const CommandResult run =
      Las({"sources", "enable", "echo", "--reason", "x", "--log", tmp_.Sub("log")});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("The following arguments were not expected: --reason x ("),
            std::string::npos)
      << run.err;
  const CommandResult before = Las({"inspect", "--log", tmp_.Sub("log"), "state"});
  EXPECT_EQ(before.exit_code, 2) << before.err;
  EXPECT_NE(before.err.find("not expected: --log " + tmp_.Sub("log") +
                            " (a command's flags go after its name: las inspect state --log ...)"),
            std::string::npos)
      << before.err;
  // A required flag typed before its command's name (probe FJ6: "--surface is required").
  const CommandResult required = Las({"release", "--surface", "x", "draft", "--", "/bin/true"});
  EXPECT_EQ(required.exit_code, 2) << required.err;
  EXPECT_NE(required.err.find("--surface is required (a command's flags go after its name: las "
                              "release draft --surface ...)"),
            std::string::npos)
      << required.err;
  const CommandResult words = Las({"inspect", "a", "b", "state"});
  EXPECT_EQ(words.exit_code, 2) << words.err;
  EXPECT_NE(words.err.find("not expected: a b (see"), std::string::npos) << words.err;
}

// `release draft ... --bogus -- CMD` said "'CMD' came before '--'", which was false, and
// never named --bogus (probe BI5).
TEST_F(FlagValuesCliTest, AnUnknownDraftFlagIsNamed) {
  const CommandResult run = Las({"release", "draft", "--surface", "echo", "--manifest", "./m.json",
                                 "--bogus", "--", "/usr/bin/python3", "x.py", "echo"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(": invalid_argument: The following argument was not expected: --bogus ("),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("came before"), std::string::npos) << run.err;
  ExpectNothingMade("draft --bogus");
  // The case the rewrite is for still reads as it did: a word before `--` taken as the command.
  const CommandResult stray = Las({"release", "draft", "--surface", "echo", "--manifest",
                                   "./m.json", "--env", "HOME", "LANG", "--", "/usr/bin/python3",
                                   "x.py"});
  EXPECT_EQ(stray.exit_code, 2) << stray.err;
  EXPECT_NE(stray.err.find("'LANG' came before '--'"), std::string::npos) << stray.err;
}

}  // namespace
}  // namespace las
