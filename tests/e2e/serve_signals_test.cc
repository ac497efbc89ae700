// How `las serve` (embedded and bridged) and `las daemon` end when their client stops
// reading, goes away for good, or a stop signal arrives (probe AA), with real processes: the
// real `las` executable, a real signed child whose calls wait on a gate file (no timing),
// and the test as the client on raw pipes, which it can stop reading or close at will.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/raw_client.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/sanitizers.h"
#include "tests/support/processes.h"
#include "tests/support/temp_dir.h"
#include "tools/daemon_client.h"
#include "tools/daemon_socket.h"

namespace las {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::AwaitCondition;
using testing::ChildrenOf;

constexpr char kInitialize[] =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}})";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `argv` with its stderr going to the file `err` (the same process: sh execs it).
std::vector<std::string> WithStderrTo(const std::string& err, std::vector<std::string> argv) {
  std::vector<std::string> wrapped = {"/bin/sh", "-c", "exec \"$@\" 2>\"$0\"", err};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

// Exit status 9 (I/O) or 0 of a wait status, as text for failures ("signal 15", ...).
std::string Described(std::optional<int> status) {
  if (!status) return "still running";
  if (WIFEXITED(*status)) return "exit " + std::to_string(WEXITSTATUS(*status));
  if (WIFSIGNALED(*status)) return "signal " + std::to_string(WTERMSIG(*status));
  return "status " + std::to_string(*status);
}

class ServeSignalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_.Sub("release"));
    release_ = std::make_unique<testing::SignedRelease>(tmp_.Sub("release"));
    testing::AddGateChild(*release_, "gate");
    // Its end takes the whole grace period: only the tests that need it have it.
    if (with_stubborn_child_) testing::AddVariantOf(*release_, "gate", "stubborn", {"--stubborn"});
    ASSERT_FALSE(HasFailure());
    release_->Sign(1);
    run_dir_ = testing::MakePrivateDir(tmp_.Sub("run"));
  }

  std::vector<std::string> Environment() const {
    std::vector<std::string> env = release_->Environment();
    env.push_back("XDG_RUNTIME_DIR=" + run_dir_);
    env.insert(env.end(), extra_env_.begin(), extra_env_.end());
    return env;
  }

  // `las serve` (with `extra` flags) of the fixture's log, its stderr to `err_`.
  std::unique_ptr<testing::ChildProcess> StartServe(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"serve", "--log", tmp_.Sub("log"), "--registry",
                                      release_->registry_path()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> argv = testing::LasArgvWithEnv(Environment(), args);
    if (under_nohup_) argv.insert(argv.begin(), "/usr/bin/nohup");
    return std::make_unique<testing::ChildProcess>(WithStderrTo(err_, argv));
  }

  // `las serve` of the fixture's log whose files may not grow past `bytes` (RLIMIT_FSIZE,
  // SIGXFSZ ignored: the write fails with EFBIG), so a real disk write fails once the log's
  // write-ahead file reaches it. Its stdin is the file `requests`, or a pipe (WriteLine)
  // when that is empty.
  std::unique_ptr<testing::ChildProcess> StartServeOnADiskThatFills(size_t bytes,
                                                                    const std::string& requests) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "trap '' XFSZ; exec \"$@\"", "sh",
                                     "/usr/bin/prlimit", "--fsize=" + std::to_string(bytes), "--"};
    for (const std::string& arg : testing::LasArgvWithEnv(
             Environment(), {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()})) {
      argv.push_back(arg);
    }
    if (requests.empty()) return std::make_unique<testing::ChildProcess>(WithStderrTo(err_, argv));
    return std::make_unique<testing::ChildProcess>(WithStderrTo(err_, argv), requests);
  }

  // A file of requests: initialize, `lists` tools/list (ids from 100000), then `calls`
  // las__state_set of keys k1, k2, ... (ids 1, 2, ...), each value 1,000 characters.
  std::string StateSetRequests(int calls, int lists = 0) {
    const std::string path = tmp_.Sub("requests.jsonl");
    std::ofstream out(path);
    out << kInitialize << "\n" << R"({"jsonrpc":"2.0","method":"notifications/initialized"})" << "\n";
    for (int i = 0; i < lists; ++i) {
      out << R"({"jsonrpc":"2.0","id":)" << 100000 + i << R"(,"method":"tools/list"})" << "\n";
    }
    for (int id = 1; id <= calls; ++id) {
      out << tools::ToolCallRequestLine(
                 id, "las__state_set",
                 json{{"key", "k" + std::to_string(id)}, {"value", std::string(1000, 'v')}}.dump())
          << "\n";
    }
    return path;
  }

  // Sends initialize and notifications/initialized; false if initialize was not answered.
  static bool Open(testing::ChildProcess& serve) {
    serve.WriteLine(kInitialize);
    auto answer = serve.ReadLine(std::chrono::seconds(120));
    if (!answer || answer->find("\"result\"") == std::string::npos) return false;
    serve.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    return true;
  }

  // Starts `las daemon` and waits until it listens.
  void StartDaemon() {
    daemon_ = std::make_unique<testing::ChildProcess>(testing::LasArgvWithEnv(
        Environment(), {"daemon", "--log", tmp_.Sub("log"), "--registry",
                        release_->registry_path()}));
    ASSERT_TRUE(daemon_->ReadLine(std::chrono::seconds(120)).has_value())
        << "the daemon never said it listens";
  }

  // Waits at most a minute for `process` to end; SIGKILLs it (and fails) if it does not.
  static std::optional<int> AwaitExit(testing::ChildProcess& process) {
    auto status = process.WaitFor(std::chrono::seconds(60));
    if (!status) process.Kill(SIGKILL);
    return status;
  }

  // Fills stdout's pipe with answers the test never reads: `calls` echoes of 60,000
  // characters (less than the 8 MiB after which Las stops reading, so writing them never
  // blocks the test), then a call held at `gate`, which Las reads only after all of them.
  void AnswersNobodyReads(testing::ChildProcess& serve, const std::string& gate, int calls = 50) {
    const std::string text(60000, 't');
    for (int id = 1; id <= calls; ++id) {
      serve.WriteLine(tools::ToolCallRequestLine(id, "gate__echo", json{{"text", text}}.dump()));
    }
    serve.WriteLine(tools::ToolCallRequestLine(calls + 1, "gate__wait", json{{"gate", gate}}.dump()));
    ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  }

  std::vector<json> Replay(std::vector<std::string> filter) {
    return testing::ReplayEvents(tmp_.Sub("log"), filter);
  }

  // The one session's SessionClosed reason ("" when it was never closed, or not one).
  std::string ClosedReason() {
    auto closed = Replay({"--kind", "SessionClosed"});
    return closed.size() == 1 ? closed[0]["payload"].value("reason", "") : "";
  }

  // The end AA2 asks for: the call recorded uncertain (`shutdown`), the session closed
  // `disconnect`, and stderr saying why.
  void ExpectEndedForAClientGone() {
    auto completed = Replay({"--kind", "ToolCallCompleted"});
    ASSERT_EQ(completed.size(), 1u);
    EXPECT_EQ(completed[0]["payload"]["outcome"], "TimedOut") << completed[0].dump();
    EXPECT_EQ(completed[0]["payload"]["error_code"], "shutdown");
    EXPECT_EQ(ClosedReason(), "disconnect");
    EXPECT_NE(ReadFile(err_).find("standard output has no reader"), std::string::npos)
        << ReadFile(err_);
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
  std::string run_dir_;
  std::string err_ = tmp_.Sub("stderr.txt");
  std::vector<std::string> extra_env_;  // added to Environment()
  bool with_stubborn_child_ = false;   // a surface `stubborn` (gate_child.py --stubborn)
  bool under_nohup_ = false;            // StartServe under /usr/bin/nohup (SIGHUP ignored)
  std::unique_ptr<testing::ChildProcess> daemon_;
};

// AA1: a client that stops reading. The first signal ends the children, and its answers
// wait for it; a second signal drops them: SessionClosed `shutdown` is still recorded
// (before: exit 0 and the session left open, later called `lost`), and exit 9 says that
// answers were not delivered.
TEST_F(ServeSignalsTest, ASecondSignalDropsUnreadAnswersRecordsTheSessionClosedAndExitsNine) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  AnswersNobodyReads(*serve, tmp_.Sub("gate-1"));
  serve->Kill(SIGTERM);
  ASSERT_TRUE(AwaitCondition([&] { return ChildrenOf(serve->pid()).empty(); }))
      << "the first signal ends the children";
  serve->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_EQ(ClosedReason(), "shutdown");
  EXPECT_NE(ReadFile(err_).find("were dropped"), std::string::npos) << ReadFile(err_);
}

// A second signal with no answer unwritten drops nothing and says so; the answer of the call
// its child held until killed is then written, and the exit is 0 (probe IY2: stderr said
// answers were dropped, then the answer came).
class ServeSignalsStubbornTest : public ServeSignalsTest {
 protected:
  ServeSignalsStubbornTest() { with_stubborn_child_ = true; }
};

TEST_F(ServeSignalsStubbornTest, ASecondSignalWithNothingUnwrittenSaysSoAndTheLaterAnswerIsWritten) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  const std::string gate = tmp_.Sub("gate-stubborn");
  serve->WriteLine(tools::ToolCallRequestLine(7, "stubborn__wait", json{{"gate", gate}}.dump()));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  serve->Kill(SIGTERM);
  ASSERT_TRUE(AwaitCondition([&] { return ReadFile(err_).find("SIGTERM: ending") != std::string::npos; }))
      << ReadFile(err_);
  serve->Kill(SIGTERM);  // the stubborn child still holds the call: its grace lasts 2 s
  const auto answer = serve->ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(answer.has_value()) << ReadFile(err_);
  EXPECT_NE(answer->find(R"("id":7)"), std::string::npos) << *answer;
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  const std::string err = ReadFile(err_);
  EXPECT_NE(err.find("second signal: no answer is waiting to be written"), std::string::npos) << err;
  EXPECT_EQ(err.find("dropping"), std::string::npos) << err;
  EXPECT_EQ(ClosedReason(), "shutdown");
}

// A signal its starter ignores stays ignored — SIGHUP under nohup is not a stop — for an
// embedded `las serve` (its handler) and a bridge to a daemon (its signalfd, which blocked
// SIGHUP and so kept it pending instead of discarded: probe BV2).
TEST_F(ServeSignalsTest, SighupUnderNohupIsNotAStop) {
  for (const bool bridge : {false, true}) {
    if (bridge) {
      ASSERT_NO_FATAL_FAILURE(StartDaemon());
    }
    under_nohup_ = true;
    auto serve = StartServe();
    under_nohup_ = false;
    ASSERT_TRUE(Open(*serve)) << bridge;
    serve->Kill(SIGHUP);
    serve->WriteLine(tools::ToolCallRequestLine(1, "las__state_set", R"({"key":"k","value":1})"));
    auto answer = serve->ReadLine(std::chrono::seconds(60));
    ASSERT_TRUE(answer.has_value()) << bridge;
    EXPECT_NE(answer->find("\"version\""), std::string::npos) << *answer;
    serve->CloseStdin();
    const std::optional<int> status = AwaitExit(*serve);
    ASSERT_TRUE(status && WIFEXITED(*status)) << bridge << ": " << Described(status);
    EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
    EXPECT_EQ(ReadFile(err_).find("SIGHUP"), std::string::npos) << ReadFile(err_);
    if (!bridge) {
      EXPECT_EQ(ClosedReason(), "eof");
    }
  }
  daemon_->Kill(SIGTERM);
  EXPECT_EQ(daemon_->Wait(), 0);
}

// Probe FQ1: a daemon started by a script's `las daemon &` ignores SIGINT (shells without job
// control start it so), which stays ignored: it says so at start instead of leaving a script
// waiting for a drain. A bridge whose daemon then goes away says it was owed nothing.
TEST_F(ServeSignalsTest, ADaemonStartedIgnoringSigintSaysSoAndABridgeItLeavesSaysNothingWasOwed) {
  const std::string daemon_err = tmp_.Sub("daemon.err");
  std::vector<std::string> argv = {"/bin/sh", "-c", "trap '' INT; exec \"$@\"", "sh"};
  for (const std::string& arg : testing::LasArgvWithEnv(
           Environment(), {"daemon", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()})) {
    argv.push_back(arg);
  }
  daemon_ = std::make_unique<testing::ChildProcess>(WithStderrTo(daemon_err, argv));
  ASSERT_TRUE(daemon_->ReadLine(std::chrono::seconds(120)).has_value())
      << "the daemon never said it listens: " << ReadFile(daemon_err);
  EXPECT_NE(ReadFile(daemon_err).find("SIGINT was ignored when the daemon started"),
            std::string::npos)
      << ReadFile(daemon_err);
  EXPECT_EQ(ReadFile(daemon_err).find("SIGTERM was ignored"), std::string::npos);
  auto serve = StartServe({"--bridge-only"});
  ASSERT_TRUE(Open(*serve));
  serve->WriteLine(tools::ToolCallRequestLine(1, "las__state_set", R"({"key":"k","value":1})"));
  ASSERT_TRUE(serve->ReadLine(std::chrono::seconds(60)).has_value());
  daemon_->Kill(SIGINT);  // ignored: the bridge is still served
  serve->WriteLine(tools::ToolCallRequestLine(2, "las__state_get", R"({"key":"k"})"));
  auto answer = serve->ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(answer.has_value());
  EXPECT_NE(answer->find("\"id\":2"), std::string::npos) << *answer;
  daemon_->Kill(SIGTERM);
  EXPECT_EQ(daemon_->Wait(), 0) << ReadFile(daemon_err);
  EXPECT_EQ(ReadFile(daemon_err).find("SIGINT: draining"), std::string::npos) << ReadFile(daemon_err);
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_NE(ReadFile(err_).find("the daemon closed the connection (it stopped or died) with "
                                "every request sent so far answered"),
            std::string::npos)
      << ReadFile(err_);
}

// AA1: one signal is enough. Answers a client does not read get 5 s from the signal
// (StdioServerOptions::signal_drain_limit), then are dropped as at a second signal, so a
// supervisor that sends one SIGTERM does not wait forever.
TEST_F(ServeSignalsTest, AFirstSignalDropsAnswersTheClientDoesNotReadAfterTheDrainLimit) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  AnswersNobodyReads(*serve, tmp_.Sub("gate-2"));
  serve->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_EQ(ClosedReason(), "shutdown");
  EXPECT_NE(ReadFile(err_).find("ms after the signal"), std::string::npos) << ReadFile(err_);
}

// Probe BS2: an operator connection that sends requests and reads no answers held the end
// after the signal (and a second signal); its answers now get the same drain limit as the
// client's, the session closes durably and, the client having had every answer, Las exits 0.
TEST_F(ServeSignalsTest, AnOperatorConnectionThatReadsNoAnswersGetsTheDrainLimitToo) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  auto paths = tools::DaemonSocketFor(tmp_.Sub("log"), run_dir_, false);
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  UniqueFd unread = testing::FloodOperatorSocketUnread(paths->operator_path, 20000);
  ASSERT_GE(unread.get(), 0);
  serve->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  EXPECT_EQ(ClosedReason(), "shutdown");
  EXPECT_NE(ReadFile(err_).find("an operator connection does not read its answers"),
            std::string::npos)
      << ReadFile(err_);
}

// Probe BU1: a third signal is the way out of an end that cannot finish — here a WAL sync
// that never returns, made on the loop's own thread for a lone call. The loop then runs no
// handler at all, and before, the third signal was one of them (and its exit would have
// waited in the log's close for that sync). Now the signal handler itself exits 9; the
// log, left as a crash leaves it, verifies.
TEST_F(ServeSignalsTest, AThirdSignalExitsWhileASyncNeverReturns) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << testing::kStalledSyncNeedsPreload;
  const std::string stall = tmp_.Sub("stall");
  extra_env_ = testing::StalledSyncEnvironment(stall);
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  std::ofstream(stall).put('x');
  serve->WriteLine(tools::ToolCallRequestLine(1, "las__state_set", R"({"key":"k","value":1})"));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(stall + ".reached"); }))
      << "the write's sync never started";
  // Three different signals: one of a kind still pending when the next arrives is one.
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) serve->Kill(signal);
  const std::optional<int> status = AwaitExit(*serve);
  fs::remove(stall);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_NE(ReadFile(err_).find("las serve: third signal: exiting now"), std::string::npos)
      << ReadFile(err_);
  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"),
                                     "--summary"});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
}

// Probe DM2: an operator's change still waiting for a stalled disk when the first signal
// came had its answer dropped by the drain limit (5 s after the signal), as if nobody read
// it. It is due, not unread: the limit starts once it is written, so the operator learns
// the change is recorded, and Las exits 0 with every answer delivered.
TEST_F(ServeSignalsTest, AnOperatorAnswerWaitingForTheDiskOutlastsTheDrainLimit) {
  if (testing::kSanitizedBuild) GTEST_SKIP() << testing::kStalledSyncNeedsPreload;
  const std::string stall = tmp_.Sub("stall");
  extra_env_ = testing::StalledSyncEnvironment(stall);
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  auto paths = tools::DaemonSocketFor(tmp_.Sub("log"), run_dir_, false);
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  testing::RawClient op = testing::ConnectOperator(paths->operator_path);
  ASSERT_FALSE(HasFailure());

  std::ofstream(stall).put('x');
  op.Send(R"({"jsonrpc":"2.0","id":1,"method":"las/grant.issue","params":{"grant_id":"grant-)" +
          std::string(28, '0') + R"(1001","agent_id":"helper","all":true,"tools":[]}})");
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(stall + ".reached"); }))
      << "the change's sync never started";
  serve->Kill(SIGTERM);
  // Past the drain limit: time itself is what is awaited here.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  fs::remove(stall);

  auto answer = op.ReadLine();
  ASSERT_TRUE(answer.has_value()) << "the answer was dropped; " << ReadFile(err_);
  EXPECT_TRUE(json::parse(*answer).contains("result")) << *answer;
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  EXPECT_EQ(ReadFile(err_).find("dropping them"), std::string::npos) << ReadFile(err_);
  EXPECT_EQ(Replay({"--kind", "GrantIssued"}).size(), 1u);
  EXPECT_EQ(ClosedReason(), "shutdown");
}

// AA2: the client is gone for good (stdin at EOF, stdout's reader closed) while a call waits
// on a child that never answers: no answer can reach anyone, so Las ends the call as at a
// signal instead of holding the child and the log's lock forever.
TEST_F(ServeSignalsTest, AClientGoneForGoodDoesNotKeepServeWaitingOnAChildThatNeverAnswers) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  const std::string gate = tmp_.Sub("gate-3");  // never opened
  serve->WriteLine(tools::ToolCallRequestLine(5, "gate__wait", json{{"gate", gate}}.dump()));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  serve->CloseStdin();
  serve->CloseStdout();
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  ExpectEndedForAClientGone();
  // The log's lock is free: the next server starts (and ends at its empty stdin).
  std::vector<std::string> next = {LAS_EXECUTABLE, "serve", "--embedded", "--log", tmp_.Sub("log"),
                                   "--registry", release_->registry_path()};
  auto again = testing::RunCommand(next, Environment());
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

// The same with only a cancelled call in flight: no answer was owed, so the exit is 0
// (probe AI4). The cancellation reaches the call (made through las__call: probe BH6) and
// races the client's leaving: the call ends cancelled, or at the shutdown, and the session
// closes at the end of the input or at the disconnect.
TEST_F(ServeSignalsTest, AClientGoneAfterCancellingItsOnlyCallExitsZero) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  const std::string gate = tmp_.Sub("gate-6");  // never opened
  serve->WriteLine(tools::ToolCallRequestLine(
      5, "las__call", json{{"name", "gate__wait"}, {"arguments", {{"gate", gate}}}}.dump()));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  serve->WriteLine(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}})");
  serve->CloseStdin();
  serve->CloseStdout();
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "TimedOut") << completed[0].dump();
  EXPECT_TRUE(completed[0]["payload"]["error_code"] == "cancelled" ||
              completed[0]["payload"]["error_code"] == "shutdown")
      << completed[0].dump();
  EXPECT_TRUE(ClosedReason() == "eof" || ClosedReason() == "disconnect") << ClosedReason();
}

// The other order: stdout's reader goes first and an answer fails to be written (the input
// stops being run then), stdin ends after. Las must still learn that stdin ended.
TEST_F(ServeSignalsTest, AClientWhoseStdoutWentFirstDoesNotKeepServeWaitingEither) {
  auto serve = StartServe();
  ASSERT_TRUE(Open(*serve));
  const std::string gate = tmp_.Sub("gate-4");
  serve->WriteLine(tools::ToolCallRequestLine(5, "gate__wait", json{{"gate", gate}}.dump()));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  serve->CloseStdout();
  serve->WriteLine(R"({"jsonrpc":"2.0","id":6,"method":"ping"})");  // its answer fails
  serve->CloseStdin();
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  ExpectEndedForAClientGone();
}

// AA3: a bridged `las serve` ends on SIGTERM, SIGINT and SIGHUP as the embedded one does —
// a note on stderr and exit 0 — instead of dying by the signal.
TEST_F(ServeSignalsTest, ABridgeEndsOnAStopSignalWithANoteAndExitZero) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  for (const auto& [sig, name] : {std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGINT, "SIGINT"},
                                      std::pair{SIGHUP, "SIGHUP"}}) {
    auto bridge = StartServe();
    ASSERT_TRUE(Open(*bridge)) << name;
    bridge->Kill(sig);
    const std::optional<int> status = AwaitExit(*bridge);
    ASSERT_TRUE(status && WIFEXITED(*status)) << name << ": " << Described(status);
    EXPECT_EQ(WEXITSTATUS(*status), 0) << name;
    const std::string err = ReadFile(err_);
    EXPECT_NE(err.find(std::string(name) + ": closing the connection"), std::string::npos) << err;
  }
  daemon_->Kill(SIGTERM);
  const int status = daemon_->Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  for (const json& closed : Replay({"--kind", "SessionClosed"})) {
    EXPECT_EQ(closed["payload"]["reason"], "disconnect") << closed.dump();
  }
}

// A bridge whose daemon has closed the connection, owing a client that reads nothing less
// than its buffer of answers, waited on stdout with its signals unseen: only SIGKILL ended
// it (probe CK1). The signal ends it now, answers dropped: exit 9.
TEST_F(ServeSignalsTest, ABridgeDrainingToAClientThatReadsNothingEndsOnASignal) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  auto bridge = StartServe();
  ASSERT_TRUE(Open(*bridge));
  const std::string text(60000, 't');  // five answers: more than the pipe takes, under 1 MiB
  for (int id = 1; id <= 5; ++id) {
    bridge->WriteLine(tools::ToolCallRequestLine(id, "gate__echo", json{{"text", text}}.dump()));
  }
  bridge->CloseStdin();
  ASSERT_TRUE(AwaitCondition([&] { return !Replay({"--kind", "SessionClosed"}).empty(); }))
      << "the daemon ends the session once the bridge has every answer";
  EXPECT_FALSE(bridge->WaitFor(std::chrono::milliseconds(200)).has_value())
      << "the bridge waits for its client to read";
  bridge->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*bridge);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  const std::string err = ReadFile(err_);
  EXPECT_NE(err.find("SIGTERM: the daemon had closed the connection"), std::string::npos) << err;
  EXPECT_NE(err.find("answers not written to standard output"), std::string::npos) << err;
  daemon_->Kill(SIGTERM);
  (void)daemon_->Wait();
}

// An answer longer than a client line's bound (a tools/list of a large catalog) is still an
// answer: the bridge, which counts what it owes, ends on SIGTERM with exit 0 once the client
// has it (probe AS1: it said "1 request(s) unanswered" and exited 9).
TEST_F(ServeSignalsTest, ABridgeCountsAnAnswerLongerThanALineBoundAsDelivered) {
  const std::string gate = tmp_.Sub("release") + "/workspace/gate_child.py";
  // Two surfaces: one child's line is bounded at 4 MiB too.
  release_->AddSurface("bulk", {"/usr/bin/python3", gate, "--bulk-tools", "25"});
  release_->AddSurface("bulky", {"/usr/bin/python3", gate, "--bulk-tools", "25"});
  release_->Sign(2);
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  auto bridge = StartServe();
  ASSERT_TRUE(Open(*bridge));
  bridge->WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  auto listed = bridge->ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(listed.has_value());
  ASSERT_GT(listed->size(), size_t{4} * 1024 * 1024);
  size_t bulk = 0;
  const json answer = json::parse(*listed);
  for (const json& tool : answer["result"]["tools"]) {
    bulk += tool["name"].get<std::string>().find("__bulk") != std::string::npos;
  }
  EXPECT_EQ(bulk, 50u);
  bridge->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*bridge);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  daemon_->Kill(SIGTERM);
  (void)daemon_->Wait();
}

// AA3: stopped with a call in flight, the bridge owes its client an answer it can no longer
// deliver: exit 9. The daemon finishes the call and logs it.
TEST_F(ServeSignalsTest, ABridgeStoppedWithACallInFlightExitsNineAndTheDaemonLogsTheCall) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  auto bridge = StartServe();
  ASSERT_TRUE(Open(*bridge));
  const std::string gate = tmp_.Sub("gate-5");
  // Behind a byte order mark, which the daemon ignores: the bridge counts it too (probe AI5).
  bridge->WriteLine("\xEF\xBB\xBF" +
                    tools::ToolCallRequestLine(5, "gate__wait", json{{"gate", gate}}.dump()));
  ASSERT_TRUE(AwaitCondition([&] { return fs::exists(gate + ".started"); }));
  bridge->Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(*bridge);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_NE(ReadFile(err_).find("1 request(s) unanswered"), std::string::npos) << ReadFile(err_);
  std::ofstream(gate).put('x');
  daemon_->Kill(SIGTERM);  // lets the call finish first
  const int daemon_status = daemon_->Wait();
  EXPECT_TRUE(WIFEXITED(daemon_status) && WEXITSTATUS(daemon_status) == 0) << daemon_status;
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok") << completed[0].dump();
  EXPECT_EQ(ClosedReason(), "disconnect");
}

// AA5: a daemon whose stdout cannot take its one line says so at once and serves; the clean
// stop that comes later is exit 0, not a failure discovered hours after its cause.
TEST_F(ServeSignalsTest, ADaemonWhoseStdoutRefusesTheSocketPathSaysSoAtOnceAndExitsZero) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" >&- 2>\"$0\"", err_};
  for (const std::string& arg :
       testing::LasArgvWithEnv(Environment(), {"daemon", "--log", tmp_.Sub("log"), "--registry",
                                               release_->registry_path()})) {
    argv.push_back(arg);
  }
  testing::ChildProcess daemon(argv);
  ASSERT_TRUE(AwaitCondition([&] {
    return ReadFile(err_).find("could not write the socket path to standard output") !=
           std::string::npos;
  })) << "stderr: " << ReadFile(err_);
  auto socket = tools::DaemonSocketFor(tmp_.Sub("log"), run_dir_, /*create=*/false);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  EXPECT_NE(ReadFile(err_).find(socket->path), std::string::npos) << "names the path";
  EXPECT_TRUE(tools::ConnectToDaemon(socket->path).ok()) << "and serves";
  daemon.Kill(SIGTERM);
  const std::optional<int> status = AwaitExit(daemon);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << ReadFile(err_);
  // Its first signal is said, with the way to cut the drain short.
  EXPECT_NE(ReadFile(err_).find("las daemon: SIGTERM: draining"), std::string::npos) << ReadFile(err_);
}

// A disk that fills while serving: the log's failure ends `las serve` with the log's error
// (exit 9), every further call refused, and every write a client was told succeeded is in
// the log, whose chain verifies.
TEST_F(ServeSignalsTest, ADiskThatFillsEndsServeWithTheLogsErrorAndLosesNoAnsweredWrite) {
  auto serve = StartServeOnADiskThatFills(256 * 1024, StateSetRequests(1000));
  std::vector<std::string> written;  // keys whose set was answered with a result
  int refused = 0;
  while (auto line = serve->ReadLine(std::chrono::seconds(60))) {
    const json answer = json::parse(*line);
    if (answer["id"] == 0) continue;
    if (answer.contains("result") && !answer["result"].value("isError", false)) {
      written.push_back("k" + answer["id"].dump());
    } else {
      ++refused;
    }
  }
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_NE(ReadFile(err_).find("appending to the log"), std::string::npos) << ReadFile(err_);
  EXPECT_FALSE(written.empty()) << "the disk filled before any write";
  EXPECT_GT(refused, 0) << "the disk never filled";
  std::set<std::string> logged;
  for (const json& event : Replay({"--kind", "StateWritten"})) logged.insert(event["payload"]["key"]);
  for (const std::string& key : written) EXPECT_TRUE(logged.contains(key)) << key << " answered, not in the log";
}

// A child's result the client was given is in the log (probe AO2): the answer goes out
// once its ToolCallCompleted is written, and a call whose completion could not be written
// is answered "Tool call failed".
TEST_F(ServeSignalsTest, ADiskThatFillsLosesNoCompletionOfAResultTheClientGot) {
  auto serve = StartServeOnADiskThatFills(256 * 1024, "");
  ASSERT_TRUE(Open(*serve));
  // One call at a time, each a short request and a 4,000-byte result: the log's writes
  // alternate, and the one that finds the disk full is most likely a completion.
  std::set<std::string> given;  // request ids answered with the child's result
  int refused = 0;
  for (int id = 1; id <= 2000 && refused == 0; ++id) {
    serve->WriteLine(tools::ToolCallRequestLine(
        id, "gate__echo", json{{"text", std::string(10, 'e')}, {"times", 400}}.dump()));
    auto line = serve->ReadLine(std::chrono::seconds(60));
    if (!line) break;
    const json answer = json::parse(*line);
    if (answer.contains("result") && !answer["result"].value("isError", false)) {
      given.insert(answer["id"].dump());
    } else {
      ++refused;
    }
  }
  serve->CloseStdin();
  const std::optional<int> status = AwaitExit(*serve);
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_FALSE(given.empty()) << "the disk filled before any call";
  EXPECT_GT(refused, 0) << "the disk never filled";
  std::set<std::string> completed;  // call ids
  for (const json& event : Replay({"--kind", "ToolCallCompleted"})) {
    completed.insert(event["payload"]["call_id"]);
  }
  std::set<std::string> recorded;  // request ids whose completion is in the log
  for (const json& event : Replay({"--kind", "ToolCallRequested"})) {
    if (completed.contains(event["payload"]["call_id"])) recorded.insert(event["payload"]["request_id"]);
  }
  for (const std::string& id : given) {
    EXPECT_TRUE(recorded.contains(id)) << "request " << id << " got a result the log does not hold";
  }
}

// The same failure while the client does not read its answers: they get the drain limit
// after the failure, as after a signal, instead of holding the server (and the log's lock)
// for as long as the client lives.
TEST_F(ServeSignalsTest, AFailedLogDoesNotWaitForeverForAClientThatDoesNotRead) {
  // Listings first: their answers (~3 KB each) fill the unread pipe whatever the number of
  // sets that pass before the disk fills, so answers are due when it does.
  auto serve = StartServeOnADiskThatFills(256 * 1024, StateSetRequests(3000, 100));
  const std::optional<int> status = AwaitExit(*serve);  // stdout is never read
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  EXPECT_NE(ReadFile(err_).find("ms after the log failed"), std::string::npos) << ReadFile(err_);
}

// The disk fills under an operator's change made through the running server's operator
// channel (`las grant`), with the client idle: the server ends by itself with the log's
// error (exit 9), as when a call's write fails, instead of serving on a failed log and
// holding its lock until a client's next call (probe AP1).
TEST_F(ServeSignalsTest, ALogThatFailsUnderAnOperatorsChangeEndsTheServer) {
  auto serve = StartServeOnADiskThatFills(64 * 1024, "");
  ASSERT_TRUE(Open(*serve));
  const std::string long_id(250, 'g');
  testing::CommandResult grant;
  for (int i = 0; i < 2000; ++i) {
    grant = testing::RunCommand({LAS_EXECUTABLE, "grant", long_id + std::to_string(i), "--all",
                                 "--log", tmp_.Sub("log")},
                                Environment());
    if (grant.exit_code != 0) break;
  }
  ASSERT_EQ(grant.exit_code, 9) << "the log never failed under a grant: " << grant.err;
  const std::optional<int> status = AwaitExit(*serve);  // no call is sent
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9) << ReadFile(err_);
  EXPECT_NE(ReadFile(err_).find("appending to the log"), std::string::npos) << ReadFile(err_);
}

// The log fails under the server's own record of a surface that stopped while serving (its
// directory moved away, then the child killed), with the client idle: the server ends with
// the log's error (exit 9) instead of serving on a failed log until the next call.
TEST_F(ServeSignalsTest, ALogThatFailsUnderASurfaceStopRecordEndsTheServer) {
  auto serve = StartServe({"--restart-delay", "0"});
  ASSERT_TRUE(Open(*serve));
  const std::vector<pid_t> children = ChildrenOf(serve->pid());
  ASSERT_EQ(children.size(), 1u) << "the gate child";
  fs::rename(tmp_.Sub("log"), tmp_.Sub("log.moved"));
  ASSERT_EQ(::kill(children[0], SIGKILL), 0);
  const std::optional<int> status = AwaitExit(*serve);  // no call is sent
  ASSERT_TRUE(status && WIFEXITED(*status)) << Described(status);
  EXPECT_EQ(WEXITSTATUS(*status), 9) << ReadFile(err_);
  EXPECT_NE(ReadFile(err_).find("moved, replaced or removed"), std::string::npos) << ReadFile(err_);
}

}  // namespace
}  // namespace las
