// `las replay` and `las demo` as an operator or auditor runs them: the real executable,
// real logs, exit codes and output checked.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "base/hex.h"
#include "log/chain_hash.h"
#include "base/printable_text.h"
#include "log/event_log.h"
#include "log/events_generated.h"
#include "log/event_builder.h"
#include "log/rocks_layout.h"
#include "trust/signature.h"
#include "tests/log/raw_db.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/sanitizers.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::Lines;
using testing::RunCommand;

CommandResult Las(std::vector<std::string> args) {
  args.insert(args.begin(), LAS_EXECUTABLE);
  return RunCommand(args);
}

// Appends one sample session (nine events) to the log in `dir`, from another process.
CommandResult AppendSession(const std::string& dir) {
  return RunCommand({LAS_APPENDER_PATH, "session", dir});
}

class ReplayCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.Sub("log");
    auto appended = AppendSession(dir_);
    ASSERT_EQ(appended.exit_code, 0) << appended.err;
  }
  testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(ReplayCliTest, PrintsEveryEventAsOneJsonLineAndDigestsOnStderr) {
  ASSERT_EQ(AppendSession(dir_).exit_code, 0);
  auto second = Las({"replay", "--log", dir_});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto lines = Lines(second.out);
  ASSERT_EQ(lines.size(), 18u);
  for (size_t i = 0; i < lines.size(); ++i) {
    json event = json::parse(lines[i]);
    EXPECT_EQ(event["seq"], i + 1);
    for (const char* field : {"time", "time_micros", "kind", "agent", "session", "prev_hash",
                              "hash", "payload"}) {
      EXPECT_TRUE(event.contains(field)) << field;
    }
  }
  EXPECT_NE(second.err.find("verified 18 events"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("projection calls"), std::string::npos) << second.err;
}

TEST_F(ReplayCliTest, FiltersSelectByKindAgentSurfaceAndRange) {
  auto denied = Las({"replay", "--log", dir_, "--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.exit_code, 0) << denied.err;
  ASSERT_EQ(Lines(denied.out).size(), 1u);
  EXPECT_EQ(json::parse(denied.out)["payload"]["tool"], "finance_execute");

  auto two_kinds = Las({"replay", "--log", dir_, "--kind", "SessionOpened", "--kind",
                        "SessionClosed"});
  EXPECT_EQ(Lines(two_kinds.out).size(), 2u);

  // A completion names only its call: it is matched to the surface through the ledger.
  auto weles = Las({"replay", "--log", dir_, "--surface", "weles"});
  auto weles_lines = Lines(weles.out);
  ASSERT_EQ(weles_lines.size(), 2u);
  EXPECT_EQ(json::parse(weles_lines[0])["kind"], "ToolCallRequested");
  EXPECT_EQ(json::parse(weles_lines[1])["kind"], "ToolCallCompleted");

  EXPECT_EQ(Lines(Las({"replay", "--log", dir_, "--agent", "demo-agent"}).out).size(), 9u);
  EXPECT_EQ(Lines(Las({"replay", "--log", dir_, "--agent", "nobody"}).out).size(), 0u);
  // The operator's own acts carry no agent, which --agent cannot spell (probe CL3).
  auto granted = Las({"grant", "someone", "--all", "--log", dir_});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  auto operators = Lines(Las({"replay", "--log", dir_, "--no-agent"}).out);
  ASSERT_EQ(operators.size(), 1u);
  EXPECT_EQ(json::parse(operators[0])["kind"], "GrantIssued");
  EXPECT_EQ(json::parse(operators[0])["agent"], "");
  EXPECT_EQ(Las({"replay", "--log", dir_, "--no-agent", "--agent", "demo-agent"}).exit_code, 2);
  auto range = Lines(Las({"replay", "--log", dir_, "--from", "3", "--to", "5"}).out);
  ASSERT_EQ(range.size(), 3u);
  EXPECT_EQ(json::parse(range.front())["seq"], 3);
  EXPECT_EQ(json::parse(range.back())["seq"], 5);
}

TEST_F(ReplayCliTest, SummaryLineCarriesHeadAndDigestsAndMatchesAcrossRuns) {
  auto first = Las({"replay", "--log", dir_, "--summary", "--kind", "SessionClosed"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto lines = Lines(first.out);
  ASSERT_EQ(lines.size(), 2u);
  json summary = json::parse(lines.back())["summary"];
  EXPECT_EQ(summary["ok"], true);
  EXPECT_EQ(summary["verified"], 9);
  EXPECT_EQ(summary["selected"], 1);
  EXPECT_EQ(summary["head"]["seq"], 9);
  EXPECT_EQ(summary["anchored"], true);
  for (const char* name : {"calls", "releases", "sessions"}) {
    EXPECT_EQ(summary["digests"][name].get<std::string>().size(), 64u) << name;
  }
  // Keys in the documented order (docs/CLI.md), for scripts that match the line's start.
  EXPECT_EQ(lines.back().rfind(R"({"summary":{"ok":true,"verified":9,"selected":1,"releases_verified":)", 0),
            0u)
      << lines.back();
  EXPECT_LT(lines.back().find(R"("head":{"seq":9,"hash":")"), lines.back().find(R"("digests":{)"))
      << lines.back();
  auto again = Las({"replay", "--log", dir_, "--summary", "--kind", "SessionClosed"});
  EXPECT_EQ(Lines(again.out).back(), lines.back()) << "replay is deterministic";
}

TEST_F(ReplayCliTest, TamperExitsThreeAndNamesTheFirstBadSequence) {
  {
    testing::RawDb db(dir_);
    std::string value = db.Get("events", testing::SequenceKey(4));
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x10);
    db.Put("events", testing::SequenceKey(4), value);
  }
  auto result = Las({"replay", "--log", dir_, "--summary"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("event 4"), std::string::npos) << result.err;
  auto lines = Lines(result.out);
  ASSERT_EQ(lines.size(), 4u) << "the three good events, then the summary";
  json summary = json::parse(lines.back())["summary"];
  EXPECT_EQ(summary["ok"], false);
  EXPECT_EQ(summary["first_bad_sequence"], 4);
  EXPECT_EQ(summary["digests_through"], 3) << "the digests are of the events before the break";
  EXPECT_EQ(summary["anchored"], false);
  EXPECT_NE(result.err.find("the head no longer vouches for them"), std::string::npos) << result.err;
}

// A chain consistent to its last event that ends elsewhere than the head record says: the
// events were rewritten with every later hash (or the head record was). The events before
// the last are not "good": any of them may have changed (probe BH4).
TEST_F(ReplayCliTest, AChainThatEndsElsewhereThanItsHeadVouchesForNoEvent) {
  {
    testing::RawDb db(dir_);
    std::string head = db.Get("meta", "head");
    head.back() = static_cast<char>(head.back() ^ 0x80);
    db.Put("meta", "head", head);
  }
  auto result = Las({"replay", "--log", dir_, "--summary"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("verification fails at event 9: the events up to this one chain "
                            "consistently but end at another hash than the recorded head"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("any event up to this one may have changed"), std::string::npos);
  json summary = json::parse(Lines(result.out).back())["summary"];
  EXPECT_EQ(summary["anchored"], false);
  EXPECT_EQ(summary["first_bad_sequence"], 9);
}

// An event of a kind this build does not know (a newer Las wrote it) prints as "Unknown"
// and is selected by that name (probe BH7: --kind Unknown was a usage error).
TEST_F(ReplayCliTest, AKindThisBuildDoesNotKnowIsSelectedAsUnknown) {
  {
    testing::RawDb db(dir_);
    const std::string before = db.Get("events", testing::SequenceKey(8));
    log::Hash previous{};
    std::memcpy(previous.data(), before.data(), previous.size());
    flatbuffers::FlatBufferBuilder builder;
    fb::Hash32 link(flatbuffers::span<const uint8_t, 32>(previous.data(), 32));
    const auto table = builder.StartTable();  // an empty table of the unknown kind
    const flatbuffers::Offset<void> payload(builder.EndTable(table));
    fb::EnvelopeBuilder envelope(builder);
    envelope.add_sequence(9);
    envelope.add_time_micros(1);
    envelope.add_prev_hash(&link);
    envelope.add_payload_type(static_cast<fb::EventPayload>(static_cast<int>(fb::EventPayload::MAX) + 1));
    envelope.add_payload(payload);
    builder.Finish(envelope.Finish(), fb::EnvelopeIdentifier());
    const log::Hash hash = log::ChainHash(previous, {builder.GetBufferPointer(), builder.GetSize()});
    db.Put("events", testing::SequenceKey(9),
           std::string(reinterpret_cast<const char*>(hash.data()), hash.size()) +
               std::string(reinterpret_cast<const char*>(builder.GetBufferPointer()), builder.GetSize()));
    db.Put("meta", "head", log::layout::EncodeHead(log::Head{9, hash}));
  }
  auto unknown = Las({"replay", "--log", dir_, "--kind", "Unknown"});
  ASSERT_EQ(unknown.exit_code, 0) << unknown.err;
  auto lines = Lines(unknown.out);
  ASSERT_EQ(lines.size(), 1u) << unknown.out;
  EXPECT_EQ(json::parse(lines[0])["seq"], 9);
  EXPECT_EQ(json::parse(lines[0])["kind"], "Unknown");
  auto bogus = Las({"replay", "--log", dir_, "--kind", "Bogus"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("and Unknown for kinds this build does not know"), std::string::npos) << bogus.err;
}

// Sessions are listed in the order they opened, not by their ids' spelling: "demo-100"
// opened last, after "demo-19" (probe BH9).
TEST_F(ReplayCliTest, InspectSessionsListsThemInTheOrderTheyOpened) {
  for (int i = 0; i < 11; ++i) ASSERT_EQ(AppendSession(dir_).exit_code, 0);
  auto listed = Las({"inspect", "sessions", "--log", dir_, "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json sessions = json::parse(listed.out)["sessions"];
  ASSERT_EQ(sessions.size(), 12u);
  for (size_t i = 1; i < sessions.size(); ++i) {
    EXPECT_LT(sessions[i - 1]["opened_sequence"], sessions[i]["opened_sequence"]) << sessions.dump();
  }
  EXPECT_EQ(sessions.back()["session_id"], "demo-100");
}

TEST_F(ReplayCliTest, WorksWhileAWriterHoldsTheLog) {
  testing::ChildProcess writer({LAS_APPENDER_PATH, "serve", dir_});
  ASSERT_EQ(writer.ReadLine(), "ready 9");
  writer.WriteLine("2");
  ASSERT_EQ(writer.ReadLine(), "head 11");
  auto result = Las({"replay", "--log", dir_});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Lines(result.out).size(), 11u);
  auto serve = Las({"serve", "--log", dir_});
  EXPECT_EQ(serve.exit_code, 7) << "a second writer is refused: " << serve.err;
  EXPECT_NE(serve.err.find("another las process"), std::string::npos) << serve.err;
}

// Runs `las replay --log DIR --kind SessionClosed` (every event verified and folded, few
// printed) with stderr on a terminal (a pseudo-terminal) and stdout to /dev/null, or to the
// terminal too; with `interrupt`, sends SIGINT once the terminal shows a progress count.
// Returns what the terminal showed and the wait status.
std::pair<std::string, int> ReplayOnATerminal(const std::string& dir, bool stdout_too = false,
                                              bool interrupt = false) {
  int terminal = -1;
  int replica = -1;
  if (::openpty(&terminal, &replica, nullptr, nullptr, nullptr) != 0) return {"openpty failed", -1};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(replica, STDERR_FILENO);
    ::dup2(stdout_too ? replica : ::open("/dev/null", O_WRONLY), STDOUT_FILENO);
    ::execl(LAS_EXECUTABLE, LAS_EXECUTABLE, "replay", "--log", dir.c_str(), "--kind",
            "SessionClosed", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(replica);
  std::string shown;
  char buffer[4096];
  ssize_t n;
  // A terminal whose last writer is gone reads EIO, not 0.
  bool interrupted = false;
  while ((n = ::read(terminal, buffer, sizeof buffer)) > 0) {
    shown.append(buffer, static_cast<size_t>(n));
    if (interrupt && !interrupted && shown.find("events verified") != std::string::npos) {
      ::kill(pid, SIGINT);
      interrupted = true;
    }
  }
  ::close(terminal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {shown, status};
}

// Issue 2: a large log replayed with stderr on a terminal shows its progress, then clears
// the line; the same replay into a pipe shows none. 200,000 events is where it starts.
TEST_F(ReplayCliTest, ALargeLogShowsProgressOnATerminalOnly) {
  {
    testing::ChildProcess writer({LAS_APPENDER_PATH, "serve", dir_});
    ASSERT_EQ(writer.ReadLine(), "ready 9");
    for (int batch = 1; batch <= 20; ++batch) {
      writer.WriteLine("10000");
      ASSERT_EQ(writer.ReadLine(std::chrono::seconds(120)), "head " + std::to_string(9 + batch * 10000));
    }
    writer.CloseStdin();
    ASSERT_EQ(writer.Wait(), 0);
  }
  const auto [shown, status] = ReplayOnATerminal(dir_);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << shown;
  EXPECT_NE(shown.find("\rlas replay: 65536/200009 events verified"), std::string::npos) << shown;
  const std::string last_count = "\rlas replay: 196608/200009 events verified\r\033[K";
  const size_t cleared = shown.find(last_count);
  ASSERT_NE(cleared, std::string::npos) << "the last count is cleared: " << shown;
  EXPECT_NE(shown.find("calls", cleared), std::string::npos) << "then the digests: " << shown;

  // With the events on the same terminal: the count shows while no event is printed (the
  // one SessionClosed comes first), and never inside an event's line (probes AT2, BH8).
  const auto [beside_events, events_status] = ReplayOnATerminal(dir_, /*stdout_too=*/true);
  ASSERT_TRUE(WIFEXITED(events_status) && WEXITSTATUS(events_status) == 0) << beside_events;
  EXPECT_NE(beside_events.find("\rlas replay: 131072/200009 events verified"), std::string::npos)
      << "the quiet stretch after the event shows its progress: " << beside_events;
  EXPECT_NE(beside_events.find("\rlas replay: 196608/200009 events verified\r\033[K"),
            std::string::npos)
      << "and clears it: " << beside_events;
  int event_lines = 0;
  std::istringstream lines(beside_events);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"kind\":") == std::string::npos) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the terminal's line end
    ++event_lines;
    EXPECT_EQ(line.find("events verified"), std::string::npos) << line;
    EXPECT_TRUE(json::accept(line)) << "an event's line is whole: " << line;
  }
  EXPECT_EQ(event_lines, 1) << beside_events;

  // Stopped by SIGINT, it dies by the signal, its progress line cleared (probe BJ3).
  const auto [stopped, stopped_status] = ReplayOnATerminal(dir_, false, /*interrupt=*/true);
  ASSERT_TRUE(WIFSIGNALED(stopped_status) && WTERMSIG(stopped_status) == SIGINT)
      << "the replay ended before it could be stopped: " << stopped_status;
  ASSERT_GE(stopped.size(), 4u);
  EXPECT_EQ(stopped.substr(stopped.size() - 4), "\r\033[K") << stopped;

  auto piped = Las({"replay", "--log", dir_, "--kind", "SessionClosed"});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err.find("events verified"), std::string::npos) << piped.err;
  EXPECT_NE(piped.err.find("calls"), std::string::npos) << piped.err;
}

// `events tail -f` into a pipe whose reader went away ends at once, not at the next event
// of a quiet log (probe IA2).
TEST_F(ReplayCliTest, TailFollowingEndsWhenItsReaderGoes) {
  testing::ChildProcess tail({LAS_EXECUTABLE, "events", "tail", "-f", "--json", "-n", "0", "--log", dir_});
  tail.CloseStdout();
  const std::optional<int> status = tail.WaitFor(std::chrono::seconds(10));
  ASSERT_TRUE(status.has_value()) << "still following a pipe nobody reads";
  ASSERT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 9);
}

// An auditor's `las replay > events.jsonl` stopped by a signal: it dies by the signal, and
// every line it wrote parses (probe HO1: the stop cut the last line, and jq refused the
// whole file). Signalled once its first output arrives, while it still has most to print.
TEST_F(ReplayCliTest, StoppedByASignalItLeavesOnlyWholeLines) {
  {
    testing::ChildProcess writer({LAS_APPENDER_PATH, "serve", dir_});
    ASSERT_EQ(writer.ReadLine(), "ready 9");
    writer.WriteLine("20000");
    ASSERT_EQ(writer.ReadLine(std::chrono::seconds(120)), "head 20009");
    writer.CloseStdin();
    ASSERT_EQ(writer.Wait(), 0);
  }
  // `events tail` prints its backlog the same way, and a stop ends it with exit 0 (probe
  // IA1: killed mid-line during the backlog, exit 130).
  const std::vector<std::pair<std::vector<std::string>, int>> runs = {
      {{"replay", "--log", dir_}, SIGINT},
      {{"replay", "--log", dir_}, SIGTERM},
      {{"replay", "--log", dir_}, SIGHUP},
      {{"events", "tail", "--json", "-n", "20009", "--log", dir_}, SIGINT},
      {{"events", "tail", "-f", "--json", "-n", "20009", "--log", dir_}, SIGTERM}};
  for (const auto& [args, signal_number] : runs) {
    const bool replay = args.front() == "replay";
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(::open("/dev/null", O_WRONLY), STDERR_FILENO);
      std::vector<char*> argv = {const_cast<char*>(LAS_EXECUTABLE)};
      for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
      argv.push_back(nullptr);
      ::execv(LAS_EXECUTABLE, argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    std::string printed;
    char buffer[4096];
    ssize_t n = ::read(out[0], buffer, sizeof buffer);
    ASSERT_GT(n, 0);
    printed.append(buffer, static_cast<size_t>(n));
    ::kill(pid, signal_number);
    while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) printed.append(buffer, static_cast<size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (replay) {
      ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
    } else {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << args[2] << " " << status;
    }
    ASSERT_EQ(printed.back(), '\n') << "the last line ends: " << printed.substr(printed.size() - 200);
    const std::vector<std::string> lines = Lines(printed);
    EXPECT_LT(lines.size(), 20009u) << "stopped before the end";
    for (const std::string& line : lines) ASSERT_TRUE(json::accept(line)) << line;
  }
}

// A log rewritten below the head kept beside the key names no first bad sequence, not even
// beside an anchor past its end (probe HP4: "fails at event 13" for a rewrite at 12 or
// before); a rollback below it names the first missing event (HO2).
TEST_F(ReplayCliTest, ARewriteBelowTheKeptHeadNamesNoFirstBadSequence) {
  const std::string config = tmp_.Sub("config");
  const std::string key = config + "/las/snapshot.key";
  auto grant = [&](const std::string& agent, const std::string& in) {
    return RunCommand({LAS_EXECUTABLE, "grant", agent, "--all", "--log", dir_},
                      {"XDG_CONFIG_HOME=" + in});
  };
  auto summary = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = {"replay", "--log", dir_, "--snapshot-key", key, "--summary"};
    args.insert(args.end(), more.begin(), more.end());
    const CommandResult replay = Las(args);
    EXPECT_EQ(replay.exit_code, 3) << replay.err;
    return json::parse(Lines(replay.out).back())["summary"];
  };
  ASSERT_EQ(grant("bob", config).exit_code, 0);  // event 10
  const std::string copy = tmp_.Sub("copy");
  std::filesystem::copy(dir_, copy, std::filesystem::copy_options::recursive);
  ASSERT_EQ(grant("carol", config).exit_code, 0);  // 11, kept beside the key
  std::filesystem::remove_all(dir_);
  std::filesystem::rename(copy, dir_);
  EXPECT_EQ(summary({})["first_bad_sequence"], 11);
  // Another writer (another key) makes another event 11 there.
  ASSERT_EQ(grant("mallory", tmp_.Sub("other")).exit_code, 0);
  const json rewritten = summary({"--anchor", "12:" + std::string(64, 'a')});
  EXPECT_EQ(rewritten["kept_head"], json::parse(R"({"state":"contradicted"})")) << rewritten.dump();
  EXPECT_FALSE(rewritten.contains("first_bad_sequence")) << rewritten.dump();
}

// The files of the log `events tail -f` follows rewritten in place by another log's (the
// directory itself kept): what it prints next must link to what it printed last, else it
// ends with exit 3 instead of printing the other log's events as the next ones.
TEST_F(ReplayCliTest, TailFollowingALogRewrittenInPlaceStopsAtTheBrokenLink) {
  namespace fs = std::filesystem;
  const std::string other = tmp_.Sub("other");
  ASSERT_EQ(AppendSession(other).exit_code, 0);
  ASSERT_EQ(AppendSession(other).exit_code, 0);
  testing::ChildProcess tail({LAS_EXECUTABLE, "events", "tail", "-f", "--json", "-n", "9", "--log", dir_});
  for (int seq = 1; seq <= 9; ++seq) {
    auto line = tail.ReadLine(std::chrono::seconds(30));
    ASSERT_TRUE(line.has_value()) << seq;
    EXPECT_EQ(json::parse(*line)["seq"], seq);
  }
  tail.Kill(SIGSTOP);  // the swap happens whole between two of its reads
  for (const auto& entry : fs::directory_iterator(dir_)) fs::remove_all(entry.path());
  fs::copy(other, dir_, fs::copy_options::recursive);
  tail.Kill(SIGCONT);
  const std::optional<int> status = tail.WaitFor(std::chrono::seconds(30));
  ASSERT_TRUE(status.has_value()) << "the tail read on";
  ASSERT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 3);
  EXPECT_TRUE(tail.DrainLines().empty()) << "nothing of the other log printed";
}

TEST(ReplayCliErrorsTest, EachBadLogHasItsOwnExitCodeAndOneClearLine) {
  testing::TempDir tmp;
  auto missing = Las({"replay", "--log", tmp.Sub("missing")});
  EXPECT_EQ(missing.exit_code, 4);
  std::ofstream(tmp.Sub("notes.txt")) << "mine";
  auto foreign = Las({"replay", "--log", tmp.path().string()});
  EXPECT_EQ(foreign.exit_code, 5);
  EXPECT_NE(foreign.err.find("not a Las log"), std::string::npos) << foreign.err;
  auto foreign_serve = Las({"serve", "--log", tmp.path().string()});
  EXPECT_EQ(foreign_serve.exit_code, 5) << foreign_serve.err;
  EXPECT_TRUE(std::filesystem::exists(tmp.Sub("notes.txt")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()),
                          std::filesystem::directory_iterator()),
            1) << "nothing was written";

  ASSERT_EQ(AppendSession(tmp.Sub("log")).exit_code, 0);
  {
    testing::RawDb db(tmp.Sub("log"));
    db.Put("meta", "format_version", std::string("\0\0\0\x07", 4));
  }
  auto newer = Las({"replay", "--log", tmp.Sub("log")});
  EXPECT_EQ(newer.exit_code, 6);
  EXPECT_EQ(Lines(newer.err).size(), 1u) << newer.err;
  EXPECT_NE(newer.err.find("newer"), std::string::npos) << newer.err;
  // A script reading --summary's last line finds one even when the log cannot be read.
  auto summarized = Las({"replay", "--log", tmp.Sub("log"), "--summary"});
  EXPECT_EQ(summarized.exit_code, 6);
  ASSERT_EQ(Lines(summarized.out).size(), 1u) << summarized.out;
  const json unreadable = json::parse(Lines(summarized.out).back())["summary"];
  EXPECT_EQ(unreadable["ok"], false);
  EXPECT_EQ(unreadable["verified"], 0);
  EXPECT_FALSE(unreadable["error"].get<std::string>().empty());
  EXPECT_EQ(unreadable["unread"], "log");
  EXPECT_EQ(Lines(summarized.out).back().rfind(R"({"summary":{"ok":false,"verified":0,"selected":0,)", 0), 0u)
      << summarized.out;

  auto bad_kind = Las({"replay", "--log", tmp.Sub("log"), "--kind", "NoSuchKind"});
  EXPECT_EQ(bad_kind.exit_code, 2);
}

// --surface selects the operator's decisions about a surface too: grants with a selector
// on it, permission rules for its tools, its source switched on or off; and calls to a tool
// of its name that no catalog held (not a bare name with no "__").
TEST(ReplayCliSurfaceTest, GrantsRulesAndSourceSwitchesAreAboutTheirSurface) {
  testing::TempDir tmp;
  {
    auto log = log::EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok());
    auto event = [](auto make) {
      log::EventBuilder b;
      return b.Finish(make(b.fbb()), "", "");
    };
    std::vector<log::EventDraft> drafts;
    for (const char* surface : {"weles", "lem"}) {
      drafts.push_back(event([&](auto& f) {
        std::vector<flatbuffers::Offset<fb::GrantSelector>> selectors = {
            fb::CreateGrantSelectorDirect(f, surface, "echo", "d256")};
        return fb::CreateGrantIssuedDirect(f, "g", "bob", "", false, &selectors);
      }));
      drafts.push_back(event([&](auto& f) {
        return fb::CreatePermissionRuleAddedDirect(f, "r", "bob", surface, "echo", "d256");
      }));
      drafts.push_back(event([&](auto& f) { return fb::CreateSourceDisabledDirect(f, surface, "x"); }));
      drafts.push_back(event([&](auto& f) { return fb::CreateSourceEnabledDirect(f, surface); }));
      // A name no catalog held: recorded whole, with no surface (probe AY7).
      const std::string unknown = std::string(surface) + "__nosuch";
      drafts.push_back(event([&](auto& f) {
        return fb::CreateToolCallDeniedDirect(f, "c", "", unknown.c_str(), "unknown-tool");
      }));
    }
    drafts.push_back(event([&](auto& f) {
      return fb::CreateToolCallDeniedDirect(f, "c", "", "weles", "unknown-tool");
    }));
    ASSERT_TRUE((*log)->Append(drafts).ok());
  }
  auto weles = Las({"replay", "--log", tmp.Sub("log"), "--surface", "weles"});
  ASSERT_EQ(weles.exit_code, 0) << weles.err;
  std::vector<std::string> kinds;
  for (const auto& line : Lines(weles.out)) kinds.push_back(json::parse(line)["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"GrantIssued", "PermissionRuleAdded",
                                             "SourceDisabled", "SourceEnabled", "ToolCallDenied"}));
}

TEST(ReplayCliErrorsTest, ARecordedReleaseWhoseSignatureDoesNotVerifyFailsTheAudit) {
  testing::TempDir tmp;
  auto keys = trust::GenerateKeyPair();
  ASSERT_TRUE(keys.ok());
  const std::string signed_bytes = R"({"other":"bytes"})";
  auto signature = trust::SignRelease(
      keys->secret_key, {reinterpret_cast<const uint8_t*>(signed_bytes.data()), signed_bytes.size()});
  ASSERT_TRUE(signature.ok());
  const std::string manifest = R"({"schema_version":1})";
  {
    auto log = log::EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->Append(testing::SampleSession("s")).ok());
    log::EventBuilder b;
    auto& f = b.fbb();
    const std::string key_id = trust::KeyIdOf(keys->public_key);
    auto payload = fb::CreateReleaseAccepted(
        f, f.CreateString(key_id), 1,
        f.CreateVector(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size()),
        f.CreateVector(signature->data(), signature->size()), f.CreateString(""),
        f.CreateString(""), f.CreateVector(keys->public_key.bytes.data(), 32));
    ASSERT_TRUE((*log)->Append({b.Finish(payload, "", "")}).ok());
  }
  auto result = Las({"replay", "--log", tmp.Sub("log")});
  EXPECT_EQ(result.exit_code, 3) << "the chain is intact, but the recorded release is forged";
  EXPECT_NE(result.err.find("event 10"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("signature does not verify"), std::string::npos) << result.err;
}

TEST(ReplayCliErrorsTest, AnUnreadableLogIsDeniedWithExitEight) {
  testing::TempDir tmp;
  ASSERT_EQ(AppendSession(tmp.Sub("log")).exit_code, 0);
  std::filesystem::permissions(tmp.Sub("log"), std::filesystem::perms::none);
  // As root, another user must be able to reach the log to be refused it.
  if (::geteuid() == 0) std::filesystem::permissions(tmp.path(), std::filesystem::perms::all);
  const CommandResult result =
      RunCommand(testing::AsUnprivilegedUser({LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log")}));
  std::filesystem::permissions(tmp.Sub("log"), std::filesystem::perms::owner_all);
  EXPECT_EQ(result.exit_code, 8) << result.err;
  EXPECT_NE(result.err.find("cannot read"), std::string::npos) << result.err;
}

// The audit does not depend on TMPDIR (probe AE6): one that names no directory made every
// read-only command abort (exit 134) before the log was opened.
TEST_F(ReplayCliTest, ReadOnlyCommandsDoNotDependOnTmpdir) {
  std::ofstream(tmp_.Sub("file")) << "x";
  for (const std::string& tmpdir : {tmp_.Sub("gone"), tmp_.Sub("file"), std::string("relative"), std::string()}) {
    for (std::vector<std::string> verb : {std::vector<std::string>{"replay"}, {"inspect", "sessions"}, {"grants"},
                                          {"events", "tail"}, {"onboarding", "status"}}) {
      verb.insert(verb.begin(), {"/usr/bin/env", "TMPDIR=" + tmpdir, LAS_EXECUTABLE});
      verb.insert(verb.end(), {"--log", dir_});
      const CommandResult result = RunCommand(verb);
      EXPECT_EQ(result.exit_code, 0) << "TMPDIR=" << tmpdir << " " << verb[3] << ": " << result.err;
    }
  }
}

// Running out of file descriptors is no damage (probe AE4): "damaged" is the corruption
// verdict an auditor acts on. Under every small open-file limit the replay either works or
// fails as an I/O error naming the cause.
TEST_F(ReplayCliTest, RunningOutOfDescriptorsIsAnIoErrorNotDamage) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << "not run " << testing::kSanitizerNeedsDescriptors;
  // Table files to open: each writer's close flushes its events into new ones.
  for (int i = 0; i < 6; ++i) ASSERT_EQ(AppendSession(dir_).exit_code, 0);
  ASSERT_EQ(Las({"replay", "--log", dir_}).exit_code, 0);
  int ran_out = 0;
  for (int limit = 8; limit <= 48; ++limit) {
    const CommandResult result = RunCommand(
        {"/bin/sh", "-c", "ulimit -n " + std::to_string(limit) + " && exec \"$0\" replay --log \"$1\"",
         LAS_EXECUTABLE, dir_});
    SCOPED_TRACE("ulimit -n " + std::to_string(limit) + ": " + result.err);
    EXPECT_EQ(result.err.find("damaged"), std::string::npos);
    if (result.exit_code == 0) continue;
    EXPECT_EQ(result.exit_code, 9);
    EXPECT_NE(result.err.find("Too many open files"), std::string::npos);
    ++ran_out;
  }
  EXPECT_GT(ran_out, 0) << "no limit was small enough: the case was not tested";
}

// A path is the operator's text, but a line break in it must not forge a second line, nor
// an escape sequence reach the terminal.
TEST(ReplayCliErrorsTest, APathWithControlCharactersIsShownEscapedOnOneLine) {
  testing::TempDir tmp;
  const std::string odd = tmp.Sub("x\n\x1b[31mRED");
  for (std::vector<std::string> verb : {std::vector<std::string>{"replay"}, {"events", "tail"}, {"grants"},
                                        {"inspect", "calls"}, {"onboarding", "status"}}) {
    verb.insert(verb.end(), {"--log", odd});
    CommandResult result = Las(verb);
    EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << verb[0] << ": " << result.err;
    EXPECT_EQ(result.out.find('\x1b'), std::string::npos) << verb[0] << ": " << result.out;
    EXPECT_LE(Lines(result.err).size(), 1u) << verb[0] << ": " << result.err;
    EXPECT_NE((result.err + result.out).find("x\\u{000A}\\u{001B}[31mRED"), std::string::npos)
        << verb[0] << ": " << result.err << result.out;
  }
}

// An unknown verb is named, not "a subcommand is required".
TEST(ReplayCliErrorsTest, AnUnknownCommandIsNamed) {
  CommandResult top = Las({"bogus"});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_EQ(top.err, "las: invalid_argument: unknown command 'bogus' (see `las --help`)\n");
  CommandResult inner = Las({"inspect", "nosuch"});
  EXPECT_EQ(inner.exit_code, 2);
  EXPECT_EQ(inner.err, "las inspect: invalid_argument: unknown command 'nosuch' (see `las inspect --help`)\n");
  // A flag before the command is not called a command.
  CommandResult early = Las({"inspect", "--log", "x"});
  EXPECT_EQ(early.exit_code, 2);
  EXPECT_EQ(early.err, "las inspect: invalid_argument: name a command before '--log' (one of: calls, catalog, "
                       "watermarks, sources, sessions, state, messages, handles) (see `las inspect "
                       "--help`)\n");
  // A flag no command takes is called unknown: naming a command would not help (probe DX4).
  CommandResult typo = Las({"--verison"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err, "las: invalid_argument: unknown option '--verison' (see `las --help`)\n");
  CommandResult inner_typo = Las({"inspect", "--lgo", "x"});
  EXPECT_EQ(inner_typo.exit_code, 2);
  EXPECT_EQ(inner_typo.err, "las inspect: invalid_argument: unknown option '--lgo' (see `las "
                            "inspect --help`)\n");
  // The commands named are those that take the flag; a bare `--` is no option (probe DZ2).
  CommandResult json_first = Las({"--json"});
  EXPECT_EQ(json_first.exit_code, 2);
  EXPECT_NE(json_first.err.find("name a command before '--json' (one of: "), std::string::npos)
      << json_first.err;
  EXPECT_NE(json_first.err.find("inspect"), std::string::npos) << json_first.err;
  EXPECT_EQ(json_first.err.find("serve"), std::string::npos) << json_first.err;
  CommandResult separator = Las({"--", "serve"});
  EXPECT_EQ(separator.exit_code, 2);
  EXPECT_EQ(separator.err.find("unknown option"), std::string::npos) << separator.err;
  // A missing required flag is named as such, not as an unknown command.
  CommandResult flag = Las({"release", "draft", "--", "/usr/bin/python3", "x.py"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.err, "las release draft: invalid_argument: --surface is required (see `las release draft --help`)\n");
  // A flag given twice is named in the same shape, not in CLI11's words.
  CommandResult twice = Las({"replay", "--from", "1", "--from", "2"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "las replay: invalid_argument: --from given more than once; give it once "
                       "(see `las replay --help`)\n");
}

// CLI11 alone read "-1" as the largest uint64_t (so --from -1 printed nothing, exit 0).
TEST_F(ReplayCliTest, IntegerFlagsTakeOnlyWholeNumbersInRange) {
  for (const char* bad : {"-1", "99999999999999999999999", "1e3", " 5", "abc", ""}) {
    CommandResult r = Las({"replay", "--log", dir_, "--from", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("must be a whole number"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Las({"events", "tail", "--log", dir_, "-n", "-1"}).exit_code, 2);
  // Leading zeros are decimal: CLI11 alone read "010" as 8 and refused "08" (probe CY2).
  EXPECT_EQ(Las({"replay", "--log", dir_, "--from", "010"}).out, "") << "the log ends at 9";
  CommandResult leading = Las({"replay", "--log", dir_, "--from", "08", "--to", "0000000000000000000009"});
  ASSERT_EQ(leading.exit_code, 0) << leading.err;
  const auto lines = Lines(leading.out);
  ASSERT_EQ(lines.size(), 2u) << leading.out;
  EXPECT_EQ(json::parse(lines[0])["seq"], 8);
  // Every exit-2 line names the same code, from CLI11's checks or the verb's own.
  EXPECT_EQ(Las({"replay", "--log", dir_, "--from", "-1"}).err.rfind("las replay: invalid_argument: --from: ", 0), 0u);
  EXPECT_EQ(Las({"events", "tail", "--log", dir_ + "/nolog"}).err.rfind("las events tail: not_found: ", 0), 0u);
  // A timer counts nanoseconds: 2^63-1 ms overflowed it and the timeout fired at once.
  for (std::vector<std::string> timeout : {std::vector<std::string>{"serve", "--call-timeout"},
                                           {"check", "--timeout-ms"}, {"release", "draft", "--timeout-ms"}}) {
    timeout.push_back("9223372036854775807");
    CommandResult r = Las(timeout);
    EXPECT_EQ(r.exit_code, 2) << timeout[0] << ": " << r.err;
    EXPECT_NE(r.err.find("31536000000"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Las({"replay", "--log", dir_, "--from", "2", "--to", "3"}).exit_code, 0);
  CommandResult zero = Las({"replay", "--log", dir_, "--to", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err, "las replay: invalid_argument: --to 0 selects nothing: sequences start at 1\n");
  CommandResult backwards = Las({"replay", "--log", dir_, "--from", "5", "--to", "3"});
  EXPECT_EQ(backwards.err, "las replay: invalid_argument: --from 5 is after --to 3\n");
  EXPECT_EQ(Las({"replay", "--log", dir_, "--surface", ""}).exit_code, 2)
      << "an empty surface would select everything";
  // A name no surface can have selects nothing: a typo, refused rather than read as "no
  // events about it". Las's own tools are the surface "las".
  for (const char* impossible : {"Weles", "a__b", "not a surface!", "weles\n"}) {
    CommandResult typo = Las({"replay", "--log", dir_, "--surface", impossible});
    EXPECT_EQ(typo.exit_code, 2) << impossible;
    EXPECT_EQ(Lines(typo.err).size(), 1u) << typo.err;
    EXPECT_NE(typo.err.find("--surface: no surface can be named that"), std::string::npos) << typo.err;
  }
  EXPECT_EQ(Las({"replay", "--log", dir_, "--surface", "las"}).exit_code, 0);
}

// Probe DC1: the chain has no secret, so a log whose tail and head were rewritten together
// verifies; a head kept elsewhere (--anchor SEQ:HASH, from an earlier summary) does not.
TEST_F(ReplayCliTest, AnAnchorKeptElsewhereCatchesARewrittenOrCutLog) {
  const auto lines = Lines(Las({"replay", "--log", dir_, "--summary"}).out);
  ASSERT_FALSE(lines.empty());
  const json head = json::parse(lines.back())["summary"]["head"];
  const std::string anchor = std::to_string(head["seq"].get<uint64_t>()) + ":" + head["hash"].get<std::string>();
  const std::string first = "1:" + json::parse(lines[0])["hash"].get<std::string>();
  const CommandResult anchored = Las({"replay", "--log", dir_, "--summary", "--anchor", anchor, "--anchor", first});
  EXPECT_EQ(anchored.exit_code, 0) << anchored.err;
  // The summary names the anchors it checked (probe FM2).
  EXPECT_EQ(json::parse(Lines(anchored.out).back())["summary"]["anchors"], json::array({anchor, first}));
  EXPECT_EQ(json::parse(lines.back())["summary"]["anchors"], json::array()) << "none given";
  std::string other = head["hash"];
  other[0] = other[0] == '0' ? '1' : '0';
  CommandResult rewritten = Las({"replay", "--log", dir_, "--summary", "--anchor", "9:" + other});
  EXPECT_EQ(rewritten.exit_code, 3) << rewritten.err;
  EXPECT_NE(rewritten.err.find("verification fails at event 9: it is not the anchored event"),
            std::string::npos)
      << rewritten.err;
  EXPECT_EQ(json::parse(Lines(rewritten.out).back())["summary"]["anchored"], false);
  CommandResult cut = Las({"replay", "--log", dir_, "--anchor", "12:" + head["hash"].get<std::string>()});
  EXPECT_EQ(cut.exit_code, 3) << cut.err;
  EXPECT_NE(cut.err.find("before the anchored event 12"), std::string::npos) << cut.err;
  for (const std::string& bad : {std::string("9"), "0:" + other, "9:" + other.substr(1), "x:" + other,
                                "9:" + std::string(64, 'A')}) {
    CommandResult refused = Las({"replay", "--log", dir_, "--anchor", bad});
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
  }
}

// Probe DC1 without an anchor: a writer with the snapshot key seals the head; events it
// did not write stay listed as unvouched, and a log cut before its sealed head fails.
TEST_F(ReplayCliTest, TheHeadSealListsUnvouchedEventsAndCatchesACut) {
  const std::string config = tmp_.Sub("config");
  const std::string key = config + "/las/snapshot.key";
  auto seal_of = [&](const std::string& key_file) {
    CommandResult replay = Las({"replay", "--log", dir_, "--snapshot-key", key_file, "--summary"});
    EXPECT_EQ(replay.exit_code, 0) << replay.err;
    return json::parse(Lines(replay.out).back())["summary"]["seal"];
  };
  // The sample session was appended without a key; `las grant` makes the user's key.
  CommandResult grant = RunCommand({LAS_EXECUTABLE, "grant", "bob", "--all", "--log", dir_},
                                   {"XDG_CONFIG_HOME=" + config});
  ASSERT_EQ(grant.exit_code, 0) << grant.err;
  EXPECT_EQ(seal_of(key), json::parse(R"({"state":"sealed","through":10,"unvouched":[[1,9]]})"));
  EXPECT_EQ(seal_of(""), nullptr) << "no key: not judged";
  const std::string other = tmp_.Sub("other.key");
  {
    std::ofstream(other) << std::string(32, 'k');
    std::filesystem::permissions(other, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  EXPECT_EQ(seal_of(other), json::parse(R"({"state":"other-key","through":0,"unvouched":[[1,10]]})"));
  CommandResult plain = Las({"replay", "--log", dir_, "--snapshot-key", key});
  EXPECT_NE(plain.err.find("head seal sealed through event 10; events no seal vouches for: 1-9"),
            std::string::npos) << plain.err;
  std::string anchor10;  // the head before the cut, as an earlier summary gave it
  {  // cut the last event, head and chain kept consistent
    testing::RawDb db(dir_);
    const std::string event10 = db.Get("events", testing::SequenceKey(10));
    anchor10 = "10:" + ToHex(std::span<const uint8_t>(
                           reinterpret_cast<const uint8_t*>(event10.data()), 32));
    const std::string event9 = db.Get("events", testing::SequenceKey(9));
    db.Delete("events", testing::SequenceKey(10));
    log::Hash hash;
    std::memcpy(hash.data(), event9.data(), hash.size());
    db.Put("meta", "head", log::layout::EncodeHead(log::Head{9, hash}));
  }
  EXPECT_EQ(Las({"replay", "--log", dir_, "--snapshot-key", ""}).exit_code, 0) << "the chain cannot tell";
  CommandResult cut = Las({"replay", "--log", dir_, "--snapshot-key", key, "--summary"});
  EXPECT_EQ(cut.exit_code, 3) << cut.err;
  EXPECT_NE(cut.err.find("the log ends at event 9, but its seal vouches for event 10: it was cut"),
            std::string::npos) << cut.err;
  const json cut_summary = json::parse(Lines(cut.out).back())["summary"];
  EXPECT_EQ(cut_summary["ok"], false);
  // Not null, as for no key (probe FM1); the kept head is judged all the same.
  EXPECT_EQ(cut_summary["seal"], json::parse(R"({"state":"contradicted"})")) << cut_summary.dump();
  EXPECT_EQ(cut_summary["first_bad_sequence"], 10) << "the first missing event (probe HO2)";
  // An anchor past the cut is named beside the seal (probe FO4: the seal's failure hid it).
  CommandResult anchored = Las({"replay", "--log", dir_, "--snapshot-key", key, "--summary",
                                "--anchor", anchor10});
  EXPECT_EQ(anchored.exit_code, 3) << anchored.err;
  EXPECT_NE(anchored.err.find("before the anchored event 10: it was cut"), std::string::npos)
      << anchored.err;
  EXPECT_EQ(json::parse(Lines(anchored.out).back())["summary"]["first_bad_sequence"], 10);
  CommandResult refused = RunCommand({LAS_EXECUTABLE, "grant", "carol", "--all", "--log", dir_},
                                     {"XDG_CONFIG_HOME=" + config});
  EXPECT_EQ(refused.exit_code, 3) << "a keyed writer refuses the cut log: " << refused.err;
}

// A CLI verb with the user's default key leaves the seal of the server's own key in place
// (probe DJ4: it replaced it, and every event that key vouched for became unvouched), and
// every keyed writer says which events no seal vouches for, at every open (DJ3).
TEST_F(ReplayCliTest, AVerbLeavesAnotherKeysSealAndEveryWriterNamesTheUnvouchedEvents) {
  const std::string server_config = tmp_.Sub("server");
  const std::string user_config = tmp_.Sub("user");
  auto grant = [&](const std::string& config, const std::string& agent) {
    return RunCommand({LAS_EXECUTABLE, "grant", agent, "--all", "--log", dir_},
                      {"XDG_CONFIG_HOME=" + config});
  };
  CommandResult first = grant(server_config, "bob");  // event 10, sealed with the server's key
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("the log has no head seal (never sealed, or its seal was removed): "
                           "none of its 9 events is vouched for"),
            std::string::npos) << first.err;
  CommandResult other = grant(user_config, "carol");  // event 11, another key
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("sealed with another snapshot key"), std::string::npos) << other.err;
  CommandResult again = grant(server_config, "dave");  // event 12
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("events 1-9, 11 of the log carry no seal of this snapshot key"),
            std::string::npos) << again.err;
  // How to list them, with this writer's key: replay's default one may be another (DP3).
  EXPECT_NE(again.err.find("las replay --log " + dir_ + " --snapshot-key " + server_config +
                           "/las/snapshot.key --summary lists them"),
            std::string::npos) << again.err;
  CommandResult replay = Las({"replay", "--log", dir_, "--summary", "--snapshot-key",
                              server_config + "/las/snapshot.key"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(json::parse(Lines(replay.out).back())["summary"]["seal"],
            json::parse(R"({"state":"sealed","through":12,"unvouched":[[1,9],[11,11]]})"));
  // This user's default key, absent, leaves the seal unjudged and says why.
  CommandResult unjudged = RunCommand({LAS_EXECUTABLE, "replay", "--log", dir_},
                                      {"XDG_CONFIG_HOME=" + tmp_.Sub("nokey")});
  EXPECT_EQ(unjudged.exit_code, 0) << unjudged.err;
  EXPECT_NE(unjudged.err.find("head seal not judged: "), std::string::npos) << unjudged.err;
  EXPECT_NE(unjudged.err.find("nokey"), std::string::npos) << "names why: " << unjudged.err;
  // With --summary too, whose "seal": null does not say why (probe IQ3).
  CommandResult summarized = RunCommand({LAS_EXECUTABLE, "replay", "--log", dir_, "--summary"},
                                        {"XDG_CONFIG_HOME=" + tmp_.Sub("nokey")});
  EXPECT_EQ(summarized.exit_code, 0) << summarized.err;
  EXPECT_TRUE(json::parse(Lines(summarized.out).back())["summary"]["seal"].is_null());
  EXPECT_NE(summarized.err.find("head seal not judged: "), std::string::npos) << summarized.err;
  EXPECT_NE(summarized.err.find("nokey"), std::string::npos) << summarized.err;
  // A key named on the command line is meant to judge: one that cannot fails the replay,
  // naming the key, rather than exit 0 with nothing judged (probe FM6).
  CommandResult missing = Las({"replay", "--log", dir_, "--snapshot-key", tmp_.Sub("nokey"),
                               "--summary"});
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_NE(missing.err.find("las replay: not_found: --snapshot-key: "), std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("nokey"), std::string::npos) << missing.err;
  EXPECT_EQ(json::parse(Lines(missing.out).back())["summary"]["ok"], false) << missing.out;
  EXPECT_EQ(json::parse(Lines(missing.out).back())["summary"]["unread"], "snapshot-key")
      << "told from a missing log (probe JA1): " << missing.out;
  const std::string short_key = tmp_.Sub("short.key");
  std::ofstream(short_key) << "seven b";
  ASSERT_EQ(::chmod(short_key.c_str(), 0600), 0);
  CommandResult malformed = Las({"replay", "--log", dir_, "--snapshot-key", short_key});
  EXPECT_EQ(malformed.exit_code, 2) << "a bad key file is a bad flag, not tamper (exit 3): "
                                    << malformed.err;
  EXPECT_NE(malformed.err.find("is not exactly 32 bytes"), std::string::npos) << malformed.err;
  // The other key's seal is named by its id; a record naming no key is not taken for some
  // key's seal that "still vouches" (probe DR5).
  EXPECT_NE(other.err.find("another snapshot key (key id "), std::string::npos) << other.err;
  testing::RawDb(dir_).Put("meta", std::string(log::layout::kHeadSealKey),
                           std::string("las.seal") + std::string("\0\0\0\1", 4));
  CommandResult nameless = grant(server_config, "erin");
  ASSERT_EQ(nameless.exit_code, 0) << nameless.err;
  EXPECT_NE(nameless.err.find("the log's head seal record names no snapshot key"),
            std::string::npos) << nameless.err;
  EXPECT_EQ(nameless.err.find("still vouches"), std::string::npos) << nameless.err;
}

// Probe DJ2: a log put back to an earlier state (the directory swapped for an old copy)
// carries that state's seal, which verifies. The head a keyed writer keeps beside its key
// does not roll back with it: the writer and `las replay` refuse the log, saying what to do
// if it was restored on purpose. A log made anew in the same place is told, not refused.
TEST_F(ReplayCliTest, ALogRolledBackBelowTheHeadKeptBesideTheKeyIsRefused) {
  const std::string config = tmp_.Sub("config");
  const std::string key = config + "/las/snapshot.key";
  auto grant = [&](const std::string& agent) {
    return RunCommand({LAS_EXECUTABLE, "grant", agent, "--all", "--log", dir_},
                      {"XDG_CONFIG_HOME=" + config});
  };
  auto summary = [&](const CommandResult& replay) {
    return json::parse(Lines(replay.out).back())["summary"];
  };
  ASSERT_EQ(grant("bob").exit_code, 0);  // event 10
  const std::string copy = tmp_.Sub("copy");
  std::filesystem::copy(dir_, copy, std::filesystem::copy_options::recursive);
  ASSERT_EQ(grant("carol").exit_code, 0);  // 11
  ASSERT_EQ(grant("dave").exit_code, 0);   // 12
  CommandResult held = Las({"replay", "--log", dir_, "--snapshot-key", key, "--summary"});
  ASSERT_EQ(held.exit_code, 0) << held.err;
  EXPECT_EQ(summary(held)["kept_head"], json::parse(R"({"state":"holds","sequence":12})"));
  EXPECT_EQ(summary(Las({"replay", "--log", dir_, "--snapshot-key", "", "--summary"}))["kept_head"],
            nullptr) << "no key: not judged";

  std::filesystem::remove_all(dir_);
  std::filesystem::rename(copy, dir_);
  CommandResult rolled_back = Las({"replay", "--log", dir_, "--snapshot-key", key, "--summary"});
  EXPECT_EQ(rolled_back.exit_code, 3) << rolled_back.err;
  EXPECT_NE(rolled_back.err.find("the log ends at event 10, but this key's writer left it at "
                                 "event 12: it was rolled back or cut"),
            std::string::npos) << rolled_back.err;
  EXPECT_EQ(summary(rolled_back)["ok"], false);
  EXPECT_EQ(summary(rolled_back)["seal"]["state"], "sealed") << "the old seal verifies";
  EXPECT_EQ(summary(rolled_back)["kept_head"], json::parse(R"({"state":"contradicted"})"))
      << "judged, not null (probe DN4)";
  EXPECT_EQ(summary(rolled_back)["first_bad_sequence"], 11) << "the first missing event (probe HO2)";
  CommandResult writer = grant("erin");
  EXPECT_EQ(writer.exit_code, 3) << writer.err;
  EXPECT_NE(writer.err.find("rolled back or cut"), std::string::npos) << writer.err;
  EXPECT_NE(writer.err.find("if the log was restored from an older copy on purpose, remove that file"),
            std::string::npos) << writer.err;
  EXPECT_EQ(Lines(Las({"replay", "--log", dir_, "--snapshot-key", ""}).out).size(), 10u)
      << "the writer refused it before appending";
  // Probe DK1: the same rollback with event 1 removed looks like another log by its first
  // event; its chain does not verify, so it is refused all the same.
  testing::RawDb(dir_).Delete("events", testing::SequenceKey(1));
  CommandResult headless = grant("erin");
  EXPECT_EQ(headless.exit_code, 3) << headless.err;
  EXPECT_NE(headless.err.find("the log's first event is not the one this key's writer left "
                              "here, and the log fails verification"),
            std::string::npos) << headless.err;

  std::filesystem::remove_all(dir_);
  ASSERT_EQ(AppendSession(dir_).exit_code, 0);
  CommandResult anew = grant("frank");
  EXPECT_EQ(anew.exit_code, 0) << anew.err;
  EXPECT_NE(anew.err.find("is not the one this snapshot key's writer left there (that one held "
                          "events through 12"),
            std::string::npos) << anew.err;
  CommandResult replay = Las({"replay", "--log", dir_, "--snapshot-key", key, "--summary"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(summary(replay)["kept_head"], json::parse(R"({"state":"holds","sequence":10})"));
  CommandResult plain = Las({"replay", "--log", dir_, "--snapshot-key", key});
  EXPECT_NE(plain.err.find("head kept outside the log: event 10, which the log holds"),
            std::string::npos) << plain.err;
}

// Probe DN2: the kept head is named after the log's path, so a log this key sealed, found
// at a path with no head kept (moved, copied or restored there), could be an older copy
// and nothing said so. The writer now says it once; from then on the head is kept there.
// Probe DN5: temporaries a writer killed while keeping left in heads/ are removed.
TEST_F(ReplayCliTest, ASealedLogAtAPathWithNoKeptHeadIsToldAndStaleTemporariesGo) {
  const std::string config = tmp_.Sub("config");
  auto grant = [&](const std::string& log, const std::string& agent) {
    return RunCommand({LAS_EXECUTABLE, "grant", agent, "--all", "--log", log},
                      {"XDG_CONFIG_HOME=" + config});
  };
  CommandResult first = grant(dir_, "bob");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err.find("no head of the log"), std::string::npos)
      << "never sealed by this key: nothing to miss: " << first.err;
  const std::string moved = tmp_.Sub("moved");
  std::filesystem::rename(dir_, moved);
  const std::string heads = config + "/las/heads";
  std::string kept_name;
  for (const auto& entry : std::filesystem::directory_iterator(heads)) {
    kept_name = entry.path().filename().string();
  }
  ASSERT_FALSE(kept_name.empty());
  const std::string stale = heads + "/." + kept_name + ".tmp-AbC123";
  std::ofstream(stale) << "left by a killed keeper";

  CommandResult there = grant(moved, "carol");
  ASSERT_EQ(there.exit_code, 0) << there.err;
  EXPECT_NE(there.err.find("no head of the log in " + moved + " was kept beside this snapshot key"),
            std::string::npos) << there.err;
  EXPECT_TRUE(std::filesystem::exists(stale)) << "another path's file: not this writer's";
  CommandResult again = grant(moved, "dave");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("no head of the log"), std::string::npos) << "kept now: " << again.err;
  std::filesystem::rename(moved, dir_);
  // Back at its first path, whose kept head (event 10) it still holds: no note, and the
  // writer of that path's kept file removes what a killed one left.
  CommandResult home = grant(dir_, "erin");
  ASSERT_EQ(home.exit_code, 0) << home.err;
  EXPECT_EQ(home.err.find("no head of the log"), std::string::npos) << home.err;
  EXPECT_FALSE(std::filesystem::exists(stale));
}

// Probe FZ1: with the snapshot key's directory open to others, another user planted
// `heads` as a link to a directory of theirs, and the writer kept the log's head there —
// their choice of where Las writes. Now nothing is kept, and both the key and the heads
// directory are noted.
TEST_F(ReplayCliTest, AHeadsDirectoryOthersControlKeepsNothing) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const std::string config = tmp_.Sub("config");
  const std::string key_dir = config + "/las";
  std::filesystem::create_directories(key_dir);
  ASSERT_EQ(::chmod(key_dir.c_str(), 0777), 0);
  const std::string theirs = tmp_.Sub("theirs");
  std::filesystem::create_directories(theirs);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  std::filesystem::create_directory_symlink(theirs, key_dir + "/heads");
  ASSERT_EQ(::lchown((key_dir + "/heads").c_str(), 65534, 65534), 0);

  CommandResult granted = RunCommand({LAS_EXECUTABLE, "grant", "bob", "--all", "--log", dir_},
                                     {"XDG_CONFIG_HOME=" + config});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_TRUE(std::filesystem::is_empty(theirs)) << "nothing written where they chose";
  EXPECT_NE(granted.err.find("the log's head is not kept outside it: the directory of kept heads " +
                             key_dir + "/heads"),
            std::string::npos)
      << granted.err;
  EXPECT_NE(granted.err.find("the snapshot key " + key_dir + "/snapshot.key is reached through a "
                             "directory others may write (" + key_dir + ", mode 0777)"),
            std::string::npos)
      << granted.err;
}

// An empty --call selected nothing and so printed the whole ledger (exit 0).
// A blank one was "the log has no call" (exit 4), where every other verb's blank id is a
// usage error (probe GV5).
TEST_F(ReplayCliTest, AnEmptyCallIdIsAUsageError) {
  for (const std::string id : {"", " "}) {
    CommandResult empty = Las({"inspect", "calls", "--log", dir_, "--call", id});
    EXPECT_EQ(empty.exit_code, 2) << empty.err;
    EXPECT_EQ(empty.out, "");
    EXPECT_EQ(Lines(empty.err).size(), 1u) << empty.err;
    EXPECT_NE(empty.err.find("an empty id names nothing"), std::string::npos) << empty.err;
  }
}

// A transcript that did not reach its file is a failure, not a success (/dev/full: ENOSPC).
TEST_F(ReplayCliTest, OutputThatCannotBeWrittenExitsNine) {
  CommandResult full = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " replay --log '" + dir_ +
                                                        "' > /dev/full"});
  EXPECT_EQ(full.exit_code, 9) << full.err;
  EXPECT_EQ(full.err, "las replay: io: writing to standard output failed: No space left on device\n")
      << "one line, and nothing that reads as a verified replay";
  CommandResult tail = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) +
                                                        " events tail --log '" + dir_ + "' > /dev/full"});
  EXPECT_EQ(tail.exit_code, 9) << tail.err;
  EXPECT_EQ(tail.err, "las events tail: io: writing to standard output failed: No space left on device\n");
  CommandResult help = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " replay --help > /dev/full"});
  EXPECT_EQ(help.exit_code, 9) << help.err;
  EXPECT_EQ(Las({"replay", "--log", dir_}).exit_code, 0);
}

// Without --summary the digests on stderr are the audit's report: lost there, the replay
// fails as it does for lost stdout (probe S2); --summary puts them on stdout instead.
TEST_F(ReplayCliTest, DigestsThatCannotBeWrittenExitNine) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  CommandResult lost = RunCommand({"/bin/sh", "-c", "exec " + std::string(LAS_EXECUTABLE) + " replay --log '" +
                                                        dir_ + "' > /dev/null 2> /dev/full"});
  EXPECT_EQ(lost.exit_code, 9);
  CommandResult summary = RunCommand({"/bin/sh", "-c", "exec " + std::string(LAS_EXECUTABLE) + " replay --log '" +
                                                           dir_ + "' --summary 2> /dev/full"});
  EXPECT_EQ(summary.exit_code, 0) << "nothing on stderr to lose";
  EXPECT_NE(summary.out.find("\"digests\""), std::string::npos) << summary.out;
}

// The AGENT column of `events tail` is padded in terminal columns, not bytes: an agent id
// of 11 characters in 19 bytes moved its rows' payload 8 columns left (probe CL1).
TEST_F(ReplayCliTest, TailAlignsNonAsciiAgentsByTheirWidth) {
  {
    auto log = log::EventLog::Open(dir_);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log::EventBuilder b;
    auto payload = fb::CreateMessageReadDirect(b.fbb(), "m1");
    ASSERT_TRUE((*log)->Append({b.Finish(payload, "za\u017c\u00f3\u0142\u0107g\u0119\u015bl\u0105", "s")}).ok());
  }
  auto tail = Las({"events", "tail", "--log", dir_, "-n", "3"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  const std::vector<std::string> lines = Lines(tail.out);
  ASSERT_EQ(lines.size(), 4u) << tail.out;
  const size_t header = DisplayWidth(lines[0].substr(0, lines[0].find("PAYLOAD")));
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(DisplayWidth(lines[i].substr(0, lines[i].find('{'))), header) << tail.out;
  }
}

// A reader that went away (`las replay | head`, a full disk) stops the replay at the next
// buffer it refuses, rather than after the whole log: the break recorded near the end of
// this one is never reached, and the one line said is the failed output.
TEST_F(ReplayCliTest, OutputThatFailsStopsTheReplayThere) {
  {
    auto log = log::EventLog::Open(dir_);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    // Well over the 64 KiB stdout buffer of JSON lines.
    for (int i = 0; i < 60; ++i) {
      ASSERT_TRUE((*log)->Append(testing::SampleSession("bulk-" + std::to_string(i))).ok());
    }
  }
  const uint64_t last = 9 + 60 * 9;
  {
    testing::RawDb db(dir_);
    std::string value = db.Get("events", testing::SequenceKey(last));
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x10);
    db.Put("events", testing::SequenceKey(last), value);
  }
  ASSERT_EQ(Las({"replay", "--log", dir_, "--summary"}).exit_code, 3) << "the break is there";
  CommandResult full = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " replay --log '" + dir_ +
                                                        "' > /dev/full"});
  EXPECT_EQ(full.exit_code, 9) << full.err;
  EXPECT_EQ(full.err, "las replay: io: writing to standard output failed: No space left on device\n");
}

// With stdout closed, descriptor 1 would be the next file opened — the log's info log —
// and the transcript would land there.
TEST_F(ReplayCliTest, AClosedStdoutFailsInsteadOfWritingIntoTheLog) {
  CommandResult closed = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " grant alice --all --log '" +
                                                          dir_ + "' >&-"});
  EXPECT_EQ(closed.exit_code, 9) << closed.err;
  std::ifstream info(dir_ + "/LOG");
  const std::string logged((std::istreambuf_iterator<char>(info)), std::istreambuf_iterator<char>());
  EXPECT_EQ(logged.find("grant-"), std::string::npos) << "the grant id went into the info log";
}

// Without --summary the digests on stderr are the audit's report: with stderr closed they
// reach no one, which is exit 9 as on a full disk, not success (probe AU6).
TEST_F(ReplayCliTest, AClosedStderrLosesTheDigestsAndFails) {
  for (const char* redirect : {" 2>&-", " 2>/dev/full"}) {
    CommandResult closed = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " replay --log '" +
                                                            dir_ + "' >/dev/null" + redirect});
    EXPECT_EQ(closed.exit_code, 9) << redirect;
  }
  CommandResult summary = RunCommand({"/bin/sh", "-c", std::string(LAS_EXECUTABLE) + " replay --summary --log '" +
                                                           dir_ + "' >/dev/null 2>&-"});
  EXPECT_EQ(summary.exit_code, 0) << "the summary line on stdout is the report";
}

}  // namespace
}  // namespace las
