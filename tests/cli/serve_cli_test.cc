// `las serve`, `las daemon` and the other commands that share their flags, through the real
// executable: what they refuse before anything runs (an empty --registry, a runtime
// directory whose path cannot be one line) and what their snapshot flags say.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "log/event_log.h"
#include "tests/support/run_command.h"
#include "tests/support/sample_events.h"
#include "tests/support/table_files.h"
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
  // With `through_shell`, `args` is the whole command after the environment (a shell
  // that gives `las` its input, say).
  CommandResult Las(const std::vector<std::string>& args, const std::string& runtime_dir,
                    bool through_shell = false) const {
    std::vector<std::string> argv = {
        "/usr/bin/timeout",          "30",
        "/usr/bin/env",              "HOME=" + tmp_.Sub("home"),
        "XDG_STATE_HOME=" + tmp_.Sub("state"), "XDG_CONFIG_HOME=" + tmp_.Sub("config"),
        "XDG_RUNTIME_DIR=" + runtime_dir,      "LAS_RELEASE_MANIFEST=",
        "LAS_RELEASE_SIGNATURE=",    "LAS_TRUST_STORE=",
        "LAS_RELEASE_WATERMARK=",    "LAS_WORKSPACE="};
    if (!through_shell) argv.push_back(LAS_EXECUTABLE);
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv);
  }
  CommandResult Las(const std::vector<std::string>& args) const { return Las(args, run_dir_); }

  testing::TempDir tmp_;
  std::string run_dir_;
};

// A release refused for a configuration variable names the variable on stderr, never its
// value; the reason alone did not say which of four to fix (probe CO5, CO1).
TEST_F(ServeCliTest, AReleaseRefusedForAVariableNamesIt) {
  const CommandResult unset = Las({"list", "--log", tmp_.Sub("log")});
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_NE(unset.err.find("release rejected (not-configured: LAS_RELEASE_MANIFEST is not set); "
                           "no surface admitted"),
            std::string::npos)
      << unset.err;
  const std::string secret = "9f86d081884c7d659a2feaa0c55ad015";
  const CommandResult relative =
      Las({"/usr/bin/env", "LAS_RELEASE_MANIFEST=/m.json", "LAS_RELEASE_SIGNATURE=/m.sig",
           "LAS_TRUST_STORE=" + secret, LAS_EXECUTABLE, "list", "--log", tmp_.Sub("log")},
          run_dir_, /*through_shell=*/true);
  EXPECT_EQ(relative.exit_code, 0) << relative.err;
  EXPECT_NE(relative.err.find("release rejected (not-absolute: LAS_TRUST_STORE is a relative "
                              "path; it must be absolute"),
            std::string::npos)
      << relative.err;
  EXPECT_EQ(relative.err.find(secret), std::string::npos) << relative.err;
}

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

// `las daemon` prints its socket path as the one line it writes to stdout, for a client to
// use as a path. A line break or an escape in XDG_RUNTIME_DIR made that two lines or a
// terminal sequence (probe AE1); escaped, it would name another file. Such a directory is
// refused where the socket path is derived, so the daemon exits 2 before it opens the log,
// and `las serve` notes it and serves embedded without an operator socket.
TEST_F(ServeCliTest, ARuntimeDirWithAControlCharacterIsRefusedNotPrinted) {
  for (const std::string& bad : {std::string("r\nX"), std::string("r\x1b[1m"),
                                 std::string("r\x7f")}) {
    const std::string runtime_dir = MakePrivateDir(tmp_.Sub(bad));
    const std::string log = tmp_.Sub("log");
    const CommandResult daemon = Las({"daemon", "--log", log}, runtime_dir);
    EXPECT_EQ(daemon.exit_code, 2) << daemon.err;
    EXPECT_TRUE(daemon.out.empty()) << "nothing on stdout: " << daemon.out;
    bool refused = false;
    for (const std::string& line : Lines(daemon.err)) {
      EXPECT_EQ(line.rfind("las daemon: ", 0), 0u) << "one line per note: " << daemon.err;
      refused |= line.starts_with("las daemon: invalid_argument: the runtime directory ");
    }
    EXPECT_TRUE(refused) << daemon.err;
    EXPECT_NE(daemon.err.find("holds a control character"), std::string::npos) << daemon.err;
    EXPECT_EQ(daemon.err.find_first_of("\x1b\x7f"), std::string::npos) << "shown escaped";
    EXPECT_FALSE(fs::exists(runtime_dir + "/las")) << "no socket directory made";
    EXPECT_FALSE(fs::exists(log)) << "refused before the log is opened";

    const CommandResult serve = Las({"serve", "--log", log}, runtime_dir);
    EXPECT_EQ(serve.exit_code, 0) << serve.err;
    EXPECT_TRUE(serve.out.empty()) << serve.out;
    EXPECT_NE(serve.err.find("not using the daemon socket"), std::string::npos) << serve.err;
    EXPECT_NE(serve.err.find("no operator socket"), std::string::npos) << serve.err;
    EXPECT_NE(serve.err.find("holds a control character"), std::string::npos) << serve.err;
    EXPECT_EQ(serve.err.find_first_of("\x1b\x7f"), std::string::npos) << "shown escaped";
    EXPECT_FALSE(fs::exists(runtime_dir + "/las")) << "no socket directory made";
    fs::remove_all(log);
  }
}

// A runtime directory too long for its socket paths is refused before anything is made or
// started: the daemon found out at bind(2), after it had opened the log, admitted the
// release and started every child (probe AU4). `las serve` serves embedded, as for any
// unusable runtime directory.
TEST_F(ServeCliTest, ARuntimeDirTooLongForItsSocketsIsRefusedBeforeTheLogOpens) {
  const std::string runtime_dir = MakePrivateDir(tmp_.Sub(std::string(100, 'r')));
  const std::string log = tmp_.Sub("log");
  const CommandResult daemon = Las({"daemon", "--log", log}, runtime_dir);
  EXPECT_EQ(daemon.exit_code, 2) << daemon.err;
  EXPECT_TRUE(daemon.out.empty()) << daemon.out;
  EXPECT_NE(daemon.err.find("las daemon: invalid_argument: the runtime directory "),
            std::string::npos)
      << daemon.err;
  EXPECT_NE(daemon.err.find("is too long: its socket paths would be"), std::string::npos)
      << daemon.err;
  EXPECT_FALSE(fs::exists(runtime_dir + "/las")) << "no socket directory made";
  EXPECT_FALSE(fs::exists(log)) << "refused before the log is opened";

  const CommandResult serve = Las({"serve", "--log", log}, runtime_dir);
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.err.find("not using the daemon socket"), std::string::npos) << serve.err;
}

// Settings that are taken, with consequences, but look like mistakes get one note at the
// start: an unknown LAS_DEFAULT_AGENT_GRANT fails closed (probe AU7), and a registry others
// may write decides which signed surfaces run (AU11).
// Probe GB1: a stdin every read of which fails (a directory, a descriptor open only for
// writing) was taken for the client's end: exit 0, nothing said, nothing served.
TEST_F(ServeCliTest, AStdinThatCannotBeReadIsAUsageError) {
  const std::string written = tmp_.Sub("written");
  for (const std::string redirect : {"< \"$2\"", "0> \"$3\""}) {
    const CommandResult served =
        Las({"/bin/sh", "-c", "exec \"$0\" serve --embedded --log \"$1\" " + redirect,
             LAS_EXECUTABLE, tmp_.Sub("log"), tmp_.path().string(), written},
            run_dir_, /*through_shell=*/true);
    EXPECT_EQ(served.exit_code, 2) << redirect << ": " << served.err;
    EXPECT_NE(served.err.find("standard input is "), std::string::npos) << served.err;
    EXPECT_NE(served.err.find("las serve reads MCP messages from it"), std::string::npos) << served.err;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("log"))) << "refused before the log is made";
}

// Probe FZ4: whoever may replace the trust store chooses the trusted key, and whoever may
// replace the watermark rolls it back; only the registry was noted at start.
TEST_F(ServeCliTest, ATrustStoreOrWatermarkOthersMayReplaceIsNoted) {
  const std::string open_dir = tmp_.Sub("open");
  fs::create_directory(open_dir);
  fs::permissions(open_dir, fs::perms::all, fs::perm_options::replace);
  const CommandResult served =
      Las({"LAS_TRUST_STORE=" + open_dir + "/trust.json",
           "LAS_RELEASE_WATERMARK=" + open_dir + "/watermark.json", LAS_EXECUTABLE, "serve",
           "--embedded", "--log", tmp_.Sub("log")},
          run_dir_, /*through_shell=*/true);
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_NE(served.err.find("las serve: the trust store " + open_dir +
                            "/trust.json is reached through a directory others may write (" +
                            open_dir + ", mode 0777)"),
            std::string::npos)
      << served.err;
  EXPECT_NE(served.err.find("las serve: the release watermark " + open_dir +
                            "/watermark.json is reached through a directory others may write"),
            std::string::npos)
      << served.err;
}

TEST_F(ServeCliTest, ADefaultGrantTypoAndARegistryOthersMayWriteAreNoted) {
  auto serve = [&](const std::string& grant, const std::string& registry) {
    std::vector<std::string> command = {"LAS_DEFAULT_AGENT_GRANT=" + grant, LAS_EXECUTABLE,
                                        "serve", "--embedded", "--log", tmp_.Sub("log")};
    if (!registry.empty()) command.insert(command.end(), {"--registry", registry});
    return Las(command, run_dir_, /*through_shell=*/true);
  };
  const std::string kGrantNote = "LAS_DEFAULT_AGENT_GRANT is neither \"root\" nor \"none\"";
  for (const std::string typo : {"Root", " root", "yes"}) {
    const CommandResult served = serve(typo, "");
    EXPECT_EQ(served.exit_code, 0) << served.err;
    EXPECT_NE(served.err.find("las serve: " + kGrantNote), std::string::npos) << served.err;
    EXPECT_EQ(served.err.find("yes"), std::string::npos) << "the value is not repeated";
  }
  for (const std::string meant : {"root", "none", ""}) {
    const CommandResult served = serve(meant, "");
    EXPECT_EQ(served.err.find(kGrantNote), std::string::npos) << meant << ": " << served.err;
  }

  const std::string registry = tmp_.Sub("registry.json");
  std::ofstream(registry) << R"({"schema_version":1,"surfaces":[{"name":"echo"}]})";
  for (const auto mode : {fs::perms::owner_read | fs::perms::owner_write, fs::perms::all}) {
    fs::permissions(registry, mode, fs::perm_options::replace);
    const CommandResult served = serve("root", registry);
    EXPECT_EQ(served.exit_code, 0) << served.err;
    const bool noted = served.err.find("may be written by others (mode 0777)") != std::string::npos;
    EXPECT_EQ(noted, mode == fs::perms::all) << served.err;
  }
  // An owner-only file in a directory others may write can be replaced by a rename (probe
  // CO6); a sticky directory (as /tmp) keeps others from that.
  const std::string open_dir = tmp_.Sub("open");
  fs::create_directory(open_dir);
  const std::string inside = open_dir + "/registry.json";
  fs::copy_file(registry, inside);
  fs::permissions(inside, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  for (const auto mode : {fs::perms::all, fs::perms::all | fs::perms::sticky_bit}) {
    fs::permissions(open_dir, mode, fs::perm_options::replace);
    const CommandResult served = serve("root", inside);
    EXPECT_EQ(served.exit_code, 0) << served.err;
    const bool noted = served.err.find("is reached through a directory others may write (" +
                                       open_dir + ", mode 0777)") != std::string::npos;
    EXPECT_EQ(noted, mode == fs::perms::all) << served.err;
  }
  // Through a symbolic link in a private directory, the open directory of the file it leads
  // to still lets others replace what is read (probe EH1).
  fs::permissions(open_dir, fs::perms::all, fs::perm_options::replace);
  const std::string private_dir = tmp_.Sub("private");
  fs::create_directory(private_dir);
  fs::permissions(private_dir, fs::perms::owner_all, fs::perm_options::replace);
  const std::string link = private_dir + "/registry.json";
  fs::create_symlink(inside, link);
  const CommandResult through_link = serve("root", link);
  EXPECT_EQ(through_link.exit_code, 0) << through_link.err;
  EXPECT_NE(through_link.err.find("is reached through a directory others may write (" + open_dir +
                                 ", mode 0777)"),
            std::string::npos)
      << through_link.err;
  // A link one step removed, and a linked directory, in the open directory (probe EL1).
  fs::remove(link);
  fs::copy_file(inside, private_dir + "/target.json");
  fs::create_symlink(private_dir + "/target.json", open_dir + "/hop.json");
  fs::create_symlink(open_dir + "/hop.json", link);
  fs::create_symlink(private_dir, open_dir + "/dirlink");
  for (const std::string& chained : {link, open_dir + "/dirlink/target.json"}) {
    const CommandResult served = serve("root", chained);
    EXPECT_EQ(served.exit_code, 0) << served.err;
    EXPECT_NE(served.err.find("is reached through a directory others may write (" + open_dir +
                              ", mode 0777)"),
              std::string::npos)
        << chained << ": " << served.err;
  }
  const CommandResult direct = serve("root", private_dir + "/target.json");
  EXPECT_EQ(direct.err.find("others may write"), std::string::npos) << direct.err;
  // A link another user owns is theirs to point elsewhere, in a sticky directory too
  // (probe EU2). Only root can give a link away.
  if (::geteuid() != 0) return;
  fs::permissions(open_dir, fs::perms::all | fs::perms::sticky_bit, fs::perm_options::replace);
  const std::string theirs = open_dir + "/theirs.json";
  fs::create_symlink(private_dir + "/target.json", theirs);
  ASSERT_EQ(::lchown(theirs.c_str(), 65534, 65534), 0);
  const CommandResult through_theirs = serve("root", theirs);
  EXPECT_EQ(through_theirs.exit_code, 0) << through_theirs.err;
  EXPECT_NE(through_theirs.err.find("is reached through a symbolic link another user owns (" + theirs +
                                    ")"),
            std::string::npos)
      << through_theirs.err;
}

// A log damaged or tampered with gets the same advice whether the open finds it (a lost
// table file) or the first read of its events does (a block that fails its checksum: probe
// IO2, where `las serve` printed RocksDB's text alone).
TEST_F(ServeCliTest, ADamagedLogIsRefusedWithTheRestoreAdviceWhereverItIsFound) {
  const std::string dir = tmp_.Sub("log");
  {
    auto log = log::EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    for (int i = 0; i < 200; ++i) ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
  }
  const fs::path largest = testing::LargestTableFile(dir);
  ASSERT_FALSE(largest.empty()) << "a closed log keeps its events in table files";
  testing::FlipTheMiddleByte(largest);
  const CommandResult flipped = Las({"serve", "--embedded", "--log", dir, "--snapshot-key", ""});
  EXPECT_EQ(flipped.exit_code, 3) << flipped.err;
  EXPECT_NE(flipped.err.find("cannot be read"), std::string::npos) << flipped.err;
  EXPECT_NE(flipped.err.find("restore the last copy that verifies"), std::string::npos) << flipped.err;
  fs::remove(largest);
  const CommandResult lost = Las({"serve", "--embedded", "--log", dir, "--snapshot-key", ""});
  EXPECT_EQ(lost.exit_code, 3) << lost.err;
  EXPECT_NE(lost.err.find("table file " + largest.string() + " is missing"), std::string::npos) << lost.err;
  EXPECT_NE(lost.err.find("restore the last copy that verifies"), std::string::npos) << lost.err;
}

// Every verb's help names the environment variables it reads (the flags name their own), so
// an operator learns of LAS_ONLY or LAS_NODE from `--help`, not only from docs/CLI.md.
TEST_F(ServeCliTest, EachVerbsHelpNamesTheVariablesItReads) {
  const std::vector<std::string> federation = {
      "LAS_RELEASE_MANIFEST", "LAS_RELEASE_SIGNATURE", "LAS_TRUST_STORE", "LAS_RELEASE_WATERMARK",
      "LAS_WORKSPACE",        "LAS_ONLY",              "LAS_SKIP",        "LAS_NODE",
      "LAS_CREDENTIAL_<NAME>", "LAS_SKARBIEC_POLICY",  "LAS_SURFACE_POLICY", "LAS_FINANCE_*",
      "SKARBIEC_MCP_AGENT_ID", "XDG_STATE_HOME",       "XDG_CONFIG_HOME"};
  std::vector<std::string> sessions = federation;
  sessions.insert(sessions.end(), {"LAS_AGENT_ID", "LAS_DEFAULT_AGENT_GRANT", "XDG_RUNTIME_DIR"});
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> verbs = {
      {{"serve"}, sessions},
      {{"daemon"}, sessions},
      {{"list"}, federation},
      {{"check"},
       {"LAS_NODE", "LAS_CREDENTIAL_<NAME>", "LAS_FINANCE_*", "LAS_SKARBIEC_POLICY",
        "SKARBIEC_MCP_AGENT_ID"}},
      {{"release", "draft"}, {"LAS_NODE", "LAS_CREDENTIAL_<NAME>"}}};
  for (const auto& [verb, variables] : verbs) {
    std::vector<std::string> args = verb;
    args.push_back("--help");
    const CommandResult help = Las(args);
    ASSERT_EQ(help.exit_code, 0) << help.err;
    for (const std::string& variable : variables) {
      EXPECT_NE(help.out.find(variable), std::string::npos) << verb.back() << ": " << variable;
    }
  }
  EXPECT_EQ(Las({"list", "--help"}).out.find("LAS_AGENT_ID"), std::string::npos);
}

// The help says how to turn snapshots off; `--snapshot-key=` is a usage error (CLI11 reads
// it as the flag without its value), so the help and docs/CLI.md name the forms that work
// (probe AF3), and both do.
TEST_F(ServeCliTest, TheHelpSaysHowToTurnSnapshotsOffAndBothWaysWork) {
  for (const char* verb : {"serve", "daemon"}) {
    const CommandResult help = Las({verb, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.err;
    std::string text;  // the help's words, whatever its line wrapping
    std::istringstream words(help.out);
    for (std::string word; words >> word;) text += (text.empty() ? "" : " ") + word;
    EXPECT_NE(text.find("Snapshots and the seal are off with --snapshot-key \"\""), std::string::npos)
        << help.out;
    EXPECT_NE(text.find("a server's snapshots alone with --snapshot-every 0"), std::string::npos)
        << help.out;
  }
  for (const std::vector<std::string>& off : {std::vector<std::string>{"--snapshot-every", "0"},
                                              std::vector<std::string>{"--snapshot-key", ""}}) {
    std::vector<std::string> args = {"serve", "--embedded", "--log", tmp_.Sub("log")};
    args.insert(args.end(), off.begin(), off.end());
    const CommandResult serve = Las(args);
    EXPECT_EQ(serve.exit_code, 0) << off[0] << ": " << serve.err;
  }
  EXPECT_EQ(Las({"serve", "--embedded", "--log", tmp_.Sub("log"), "--snapshot-key="}).exit_code, 2);
}

// A new --snapshot-key path is no fault: its file is made at start. The snapshots sealed
// with the old key are ignored, and the warning said "no usable snapshot key" as if the key
// were broken (probe AF3); it says why now, and that the log's events so far carry no seal
// of the new key.
TEST_F(ServeCliTest, SnapshotsIgnoredForANewKeyPathSayTheyWereSealedWithAnotherKey) {
  const std::string input = tmp_.Sub("input");
  std::ofstream(input)
      << R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","method":"notifications/initialized"})" << "\n"
      << R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"las__onboarding","arguments":{"action":"status"}}})"
      << "\n";
  auto serve = [&](const std::string& key, bool adopt = false) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" < \"$0\"", input,
                                     LAS_EXECUTABLE, "serve", "--embedded", "--log",
                                     tmp_.Sub("log"), "--snapshot-every", "1", "--snapshot-key", key};
    if (adopt) argv.push_back("--adopt-seal");
    return Las(argv, run_dir_, /*through_shell=*/true);
  };
  // The seal as `las replay` judges it with `key`.
  auto seal_with = [&](const std::string& key) {
    const CommandResult replay = RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"),
                                             "--snapshot-key", key, "--summary"});
    EXPECT_EQ(replay.exit_code, 0) << replay.err;
    const std::vector<std::string> lines = Lines(replay.out);
    return lines.empty() ? std::string() : lines.back();
  };
  const CommandResult first = serve(tmp_.Sub("keys/first.key"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(fs::exists(tmp_.Sub("keys/first.key"))) << "snapshots were taken: " << first.err;

  const CommandResult second = serve(tmp_.Sub("keys/second.key"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("snapshot at sequence 3 ignored: corruption: snapshot record: seal "
                            "mismatch (damaged, or sealed with another key)"),
            std::string::npos)
      << second.err;
  // Probe DN1: a server with another key (here a new path; a lost key, another HOME) replaced
  // the seal for good and the first key then vouched for nothing. It leaves that seal in
  // place now, appends unsealed, and says how to adopt it.
  EXPECT_NE(second.err.find("the log's head is sealed with another snapshot key (key id "),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find(") than " + tmp_.Sub("keys/second.key")), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("this server appends unsealed and leaves that seal in place"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("no usable snapshot key"), std::string::npos) << second.err;
  EXPECT_TRUE(fs::exists(tmp_.Sub("keys/second.key")));
  EXPECT_NE(seal_with(tmp_.Sub("keys/first.key")).find(R"("seal":{"state":"sealed","through":3,"unvouched":[[4,)"),
            std::string::npos)
      << "the first key still vouches for its events: " << seal_with(tmp_.Sub("keys/first.key"));
  const CommandResult adopted = serve(tmp_.Sub("keys/second.key"), /*adopt=*/true);
  ASSERT_EQ(adopted.exit_code, 0) << adopted.err;
  EXPECT_NE(adopted.err.find("--adopt-seal: this server seals the log with its key from its "
                             "first write on, replacing that seal"),
            std::string::npos)
      << adopted.err;
  const std::string adopted_seal = seal_with(tmp_.Sub("keys/second.key"));
  EXPECT_NE(adopted_seal.find(R"("seal":{"state":"sealed")"), std::string::npos) << adopted_seal;
  // `las list` writes the log as a server, with the key it is given (probe DP2: the default
  // key only, and its note named flags it refused): its events are sealed, nothing more is
  // unvouched.
  const CommandResult listed = Las({"list", "--log", tmp_.Sub("log"), "--snapshot-key",
                                    tmp_.Sub("keys/second.key")});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.err.find("another snapshot key"), std::string::npos) << listed.err;
  const std::string listed_seal = seal_with(tmp_.Sub("keys/second.key"));
  const auto unvouched = [](const std::string& summary) {
    const size_t at = summary.find(R"("unvouched":)");
    return at == std::string::npos ? std::string() : summary.substr(at, summary.find(']', at) - at);
  };
  EXPECT_NE(listed_seal, adopted_seal) << "list appended, sealed through its head";
  EXPECT_NE(listed_seal.find(R"("seal":{"state":"sealed")"), std::string::npos) << listed_seal;
  EXPECT_EQ(unvouched(listed_seal), unvouched(adopted_seal)) << listed_seal;

  const CommandResult off = serve("");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.err.find("ignored: snapshots are off"), std::string::npos) << off.err;
  EXPECT_EQ(off.err.find("no usable snapshot key"), std::string::npos) << off.err;
  // A rotation asked for with no key to seal with is told, not assumed (probe DP4).
  const CommandResult no_key_adopt = serve("", /*adopt=*/true);
  ASSERT_EQ(no_key_adopt.exit_code, 0) << no_key_adopt.err;
  EXPECT_NE(no_key_adopt.err.find("--adopt-seal: nothing is adopted: this server has no "
                                  "snapshot key to seal with"),
            std::string::npos)
      << no_key_adopt.err;
}

// Las's stdin and stdout are descriptions it shares with whoever gave them (a pipeline's next
// command, a script's later `cat`): the loop's non-blocking mode must not reach them, or
// their reads and writes fail with EAGAIN after Las is gone (probe AU2). A pipe is reopened,
// so it is never switched; a socket is switched back at exit.
TEST_F(ServeCliTest, TheStdinAndStdoutItSharesStayBlocking) {
  static const char* const kClient = R"PY(
import fcntl, os, socket, subprocess, sys
mode, cmd = sys.argv[1], sys.argv[2:]
init = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')
def nonblocking(fd):
    return 'nonblocking' if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK else 'blocking'
def answer(read):
    got = b''
    while not got.endswith(b'\n'):
        chunk = read()
        if not chunk: break
        got += chunk
    return got
if mode == 'pipe':
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    # This process keeps in_r and out_w: the same descriptions as Las's stdin and stdout.
    child = subprocess.Popen(cmd, stdin=in_r, stdout=out_w)
    os.write(in_w, init)
    got = answer(lambda: os.read(out_r, 65536))
    print('answered', b'"result"' in got, 'serving', nonblocking(in_r), nonblocking(out_w))
    os.close(in_w)
    child.wait()
    print('exit', child.returncode, 'after', nonblocking(in_r), nonblocking(out_w))
else:
    ours, theirs = socket.socketpair()
    child = subprocess.Popen(cmd, stdin=theirs, stdout=theirs)
    ours.sendall(init)
    got = answer(lambda: ours.recv(65536))
    ours.shutdown(socket.SHUT_WR)
    child.wait()
    print('answered', b'"result"' in got, 'exit', child.returncode, 'after',
          nonblocking(theirs.fileno()))
)PY";
  auto run = [&](const std::string& mode) {
    return Las({"/usr/bin/python3", "-c", kClient, mode, LAS_EXECUTABLE, "serve", "--embedded",
                "--log", tmp_.Sub("log-" + mode)},
               run_dir_, /*through_shell=*/true);
  };
  const CommandResult pipe = run("pipe");
  ASSERT_EQ(pipe.exit_code, 0) << pipe.err;
  EXPECT_EQ(pipe.out,
            "answered True serving blocking blocking\nexit 0 after blocking blocking\n")
      << pipe.err;
  const CommandResult socket = run("socket");
  ASSERT_EQ(socket.exit_code, 0) << socket.err;
  EXPECT_EQ(socket.out, "answered True exit 0 after blocking\n") << socket.err;
}

// Probe HB1: with stderr a full pipe nobody reads (an MCP host that never drains it), the
// first note stalled the loop, so nothing was answered and no signal, not even the third,
// ended the server. A pipe gets a description of Las's own, non-blocking: notes are dropped
// and the server answers and stops as usual. A socket stays blocking (its flags are shared):
// the third signal still ends it.
TEST_F(ServeCliTest, AStderrNobodyReadsNeitherStallsTheServerNorItsStop) {
  static const char* const kClient = R"PY(
import os, signal, socket, subprocess, sys, time
mode, cmd = sys.argv[1], sys.argv[2:]
init = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')
def fill(fd):
    os.set_blocking(fd, False)
    try:
        while True: os.write(fd, b'z' * 4096)
    except BlockingIOError: pass
    os.set_blocking(fd, True)
if mode != 'socket':
    keep, err = os.pipe()
else:
    keep, theirs = socket.socketpair()
    err = theirs.fileno()
fill(err)
child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
child.stdin.write(init); child.stdin.flush()
if mode == 'pipe':
    print('answered', b'"result"' in child.stdout.readline())
    child.send_signal(signal.SIGTERM)
elif mode == 'daemon':
    print('listening', child.stdout.readline().strip().endswith(b'.sock'))
    child.send_signal(signal.SIGTERM)
else:
    time.sleep(0.5)
    for _ in range(3):
        child.send_signal(signal.SIGTERM); time.sleep(0.2)
try:
    print('exit', child.wait(timeout=15))
except subprocess.TimeoutExpired:
    child.kill(); child.wait(); print('still running 15 s after the signals')
)PY";
  auto run = [&](const std::string& mode) {
    const std::string verb = mode == "daemon" ? "daemon" : "serve";
    std::vector<std::string> command = {"/usr/bin/python3", "-c", kClient, mode, LAS_EXECUTABLE, verb,
                                        "--log", tmp_.Sub("log-" + mode)};
    if (verb == "serve") command.push_back("--embedded");
    return Las(command, run_dir_, /*through_shell=*/true);
  };
  const CommandResult pipe = run("pipe");
  EXPECT_EQ(pipe.out, "answered True\nexit 0\n") << pipe.err;
  const CommandResult daemon = run("daemon");
  EXPECT_EQ(daemon.out, "listening True\nexit 0\n") << daemon.err;
  const CommandResult socket = run("socket");
  EXPECT_EQ(socket.out, "exit 9\n") << socket.err;
}

}  // namespace
}  // namespace las
