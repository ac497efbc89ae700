// The gateway with real signed children: federation, routing, failures contained, the
// log of every decision. Driven by the official MCP SDK client.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "log/envelope.h"
#include "log/log_reader.h"
#include "tests/support/child_process.h"
#include "tests/support/processes.h"
#include "tests/support/run_command.h"
#include "tests/support/sanitizers.h"
#include "tests/support/temp_dir.h"
#include "trust/tool_binding_check.h"
#include "trust/trust_store.h"

namespace las {
namespace {

using nlohmann::json;

using testing::CallStep;
using testing::StepText;

// A process's command line; "" once it is gone (reading /proc of an exiting process fails
// with ESRCH, which libstdc++ throws).
std::string CmdlineOf(const std::filesystem::path& process) {
  try {
    std::ifstream in(process / "cmdline", std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    return {};
  }
}

// Processes whose command line mentions `needle` (children that outlived the server).
int ProcessesMentioning(const std::string& needle) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = CmdlineOf(entry.path());
    if (cmdline.find(needle) != std::string::npos) ++count;
  }
  return count;
}

// What the servers a test ran left behind, one line per process ("" when nothing). The test
// is a child subreaper (FederationTest::SetUp), so a process a server leaves running, or
// exits without reaping, becomes the test's own child. A command line would not do: Las
// runs a child's script through /dev/fd/N, so it does not name the workspace (probe AH5).
std::string LeftBehind() {
  std::string found;
  for (const pid_t pid : testing::ChildrenOf(::getpid())) {
    found += std::to_string(pid) + ": " + CmdlineOf("/proc/" + std::to_string(pid)) + "\n";
  }
  return found;
}

// Ends and reaps what LeftBehind() shows (what a SIGKILLed server could not end).
void KillLeftBehind() {
  for (const pid_t pid : testing::ChildrenOf(::getpid())) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

// Kills processes whose command line mentions `needle` (what a SIGKILLed server leaves).
void KillProcessesMentioning(const std::string& needle) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = CmdlineOf(entry.path());
    if (cmdline.find(needle) == std::string::npos) continue;
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") == std::string::npos) ::kill(std::stoi(name), SIGKILL);
  }
}

// True once the log in `dir` holds an event of `kind`.
bool LogHas(const std::string& dir, fb::EventPayload kind) {
  auto reader = log::LogReader::Open(dir);
  if (!reader.ok()) return false;
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) return false;
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok() || !*more) return false;
    if (log::EnvelopeOf((*cursor)->current()).payload_type() == kind) return true;
  }
}

class FederationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // for LeftBehind()
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    testing::AddStandIns(*release_, {"echo", "lem"});
    testing::AddTestChild(*release_, "flaky");
    ASSERT_FALSE(HasFailure());
    // Signed like flaky, but it exits before answering: admitted by nothing.
    testing::AddVariantOf(*release_, "flaky", "dead", {"--exit-at-start", "3"});
    testing::AddVariantOf(*release_, "flaky", "noisy", {"--flood-stderr-mb", "20"});
  }

  testing::SdkRun Serve(json steps, std::vector<std::string> extra_args = {},
                        json extra_env = json::object()) {
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                             testing::EnvObject(release_->Environment(), extra_env), steps,
                             extra_args);
  }

  // One `las list` on the test's log, with `extra_env` ("NAME=value") added.
  void ListOnce(const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> env = release_->Environment();
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    auto run = testing::RunCommand({LAS_EXECUTABLE, "list", "--log", tmp_.Sub("log"), "--registry",
                                    release_->registry_path()},
                                   env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
  }

  std::vector<json> Replay(std::vector<std::string> filter = {}) {
    return testing::ReplayEvents(tmp_.Sub("log"), filter);
  }

  // Signs release 1 with flaky's `echo` taking `argument` from the credential
  // flaky.api-key (LAS_CREDENTIAL_FLAKY_API_KEY).
  void SignWithEchoCredential(const std::string& argument) {
    for (auto& surface : release_->manifest().surfaces) {
      if (surface.name != "flaky") continue;
      for (auto& tool : surface.tools) {
        if (tool.name == "echo") tool.credential_templates[argument] = "flaky.api-key";
      }
    }
    release_->Sign(1);
  }

  // Adds "slow", flaky's variant that sleeps at start while the returned gate file exists.
  std::string AddSlowSurface() {
    const std::string gate = tmp_.Sub("slow-gate");
    std::ofstream(gate) << "held";
    testing::AddVariantOf(*release_, "flaky", "slow", {"--sleep-at-start-while", gate});
    return gate;
  }

  // `las serve` of the fixture's log with --start-timeout `timeout_ms`, a child process whose
  // stdin and stdout the test drives line by line.
  std::unique_ptr<testing::ChildProcess> StartServe(const std::string& timeout_ms) {
    return std::make_unique<testing::ChildProcess>(testing::LasArgvWithEnv(
        release_->Environment(), {"serve", "--log", tmp_.Sub("log"), "--registry",
                                  release_->registry_path(), "--start-timeout", timeout_ms}));
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(FederationTest, AdmittedSurfacesServeAndAFailedOneIsLeftOut) {
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}, CallStep("echo__echo", {{"message", "hi"}}),
                    CallStep("lem__search", {{"query", "provenance"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("echo__echo"));
  EXPECT_TRUE(names.count("lem__provenance"));
  EXPECT_TRUE(names.count("flaky__crash"));
  EXPECT_TRUE(names.count("noisy__echo"));
  EXPECT_TRUE(names.count("las__onboarding"));
  for (const auto& name : names) EXPECT_NE(name.rfind("dead__", 0), 0u) << name;
  EXPECT_EQ(StepText(run.steps[1]), "Echo: hi");
  EXPECT_NE(StepText(run.steps[2]).find("provenance"), std::string::npos);
  EXPECT_NE(run.err.find("surface dead left out (start-failed)"), std::string::npos) << run.err;

  auto rejected = Replay({"--kind", "SurfaceRejected"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["surface"], "dead");
  EXPECT_EQ(rejected[0]["payload"]["reason"], "start-failed");
  EXPECT_EQ(Replay({"--kind", "SurfaceAdmitted"}).size(), 4u);
  EXPECT_EQ(Replay({"--kind", "CatalogLoaded"}).size(), 4u);
  EXPECT_EQ(Replay({"--kind", "ReleaseAccepted"}).size(), 1u);
  // Every call: requested (durable first), then completed, same call id.
  auto requested = Replay({"--kind", "ToolCallRequested"});
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(requested.size(), 2u);
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(requested[0]["payload"]["surface"], "echo");
  EXPECT_EQ(requested[0]["payload"]["tool"], "echo");
  EXPECT_EQ(requested[0]["payload"]["arguments"], R"({"message":"hi"})");
  EXPECT_EQ(completed[0]["payload"]["call_id"], requested[0]["payload"]["call_id"]);
  EXPECT_LT(requested[0]["seq"], completed[0]["seq"]);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok");
}

// What a surface started outside its process group is ended when the surface ends, while
// Las serves on — not only at Las's exit (probe AW3: a surface restarted again and again
// piled its forerunners' processes up).
TEST_F(FederationTest, WhatAnEndedSurfaceLeftRunningEndsWithItWhileLasServesOn) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__escapee"), CallStep("flaky__crash"),
                    {{"op", "awaitProcessGone"}, {"pidOfStep", 0}},
                    CallStep("echo__echo", {{"message", "still"}})},
                   {"--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps[0]["ok"], true) << run.steps[0].dump();
  EXPECT_EQ(run.steps[2]["ok"], true) << run.steps[2].dump();
  EXPECT_EQ(StepText(run.steps[3]), "Echo: still");
  EXPECT_EQ(LeftBehind(), "");
}

// A child that closed its stdout but ran on is ended by Las; its stop said "killed by
// signal 15", as if something else had killed it (probe CG4).
TEST_F(FederationTest, AChildThatClosesItsOutputIsRecordedAsEndedByLas) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__close_stdout"),
                    CallStep("echo__echo", {{"message", "still"}})},
                   {"--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["ok"], false);
  EXPECT_EQ(StepText(run.steps[1]), "Echo: still");
  auto stopped = Replay({"--kind", "SurfaceStopped"});
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stopped[0]["payload"]["detail"].get<std::string>().rfind(
                "its output closed, and las ended it (signal 15)", 0),
            0u)
      << stopped[0].dump();
  EXPECT_EQ(LeftBehind(), "");
}

// A child that dies of a signal of its own (a crash, a kill by someone else) closes its
// output as it dies: its stop names the signal, not Las (probe CH1: every such death read
// "las ended it" for a while).
TEST_F(FederationTest, AChildThatDiesOfASignalIsNotRecordedAsEndedByLas) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__crash", {{"signal", SIGSEGV}}),
                    CallStep("echo__echo", {{"message", "still"}})},
                   {"--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["ok"], false);
  auto stopped = Replay({"--kind", "SurfaceStopped"});
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["payload"]["detail"].get<std::string>().rfind("killed by signal 11", 0), 0u)
      << stopped[0].dump();
}

TEST_F(FederationTest, AChildThatCrashesMidCallFailsOnlyItsOwnCalls) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__crash"), CallStep("echo__echo", {{"message", "still"}}),
                    CallStep("flaky__echo", {{"text", "gone"}}),
                    CallStep("lem__search", {{"query", "q"}})},
                   {"--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["ok"], false);
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603);
  EXPECT_EQ(run.steps[0]["error"]["message"].get<std::string>().find("exit"), std::string::npos)
      << "generic error, no child detail";
  EXPECT_EQ(StepText(run.steps[1]), "Echo: still");
  EXPECT_EQ(run.steps[2]["ok"], false);
  EXPECT_EQ(run.steps[2]["error"]["code"], -32603);
  EXPECT_EQ(run.steps[3]["ok"], true);
  auto completed = Replay({"--kind", "ToolCallCompleted", "--surface", "flaky"});
  ASSERT_EQ(completed.size(), 1u) << "the call after the crash never reached the log's requests";
  EXPECT_EQ(completed[0]["payload"]["outcome"], "TimedOut") << "uncertain: it may have acted first";
  EXPECT_EQ(completed[0]["payload"]["error_code"], "child_exited");
  auto inspect = testing::RunCommand({LAS_EXECUTABLE, "inspect", "calls", "--json", "--log", tmp_.Sub("log")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  int crashed = 0;
  for (const json& call : json::parse(inspect.out)) {
    if (call["tool"] != "crash") continue;
    ++crashed;
    EXPECT_EQ(call["status"], "uncertain") << call.dump();
    EXPECT_EQ(call["reason"], "child_exited") << call.dump();
  }
  EXPECT_EQ(crashed, 1);
  EXPECT_NE(run.err.find("surface flaky stopped (child-exited)"), std::string::npos)
      << "the operator is told once: " << run.err;
  auto stopped = Replay({"--kind", "SurfaceStopped"});
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["payload"]["surface"], "flaky");
  EXPECT_EQ(stopped[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stopped[0]["payload"]["restart_after_ms"], -1) << "--restart-delay 0: never";
  auto denied = Replay({"--kind", "ToolCallDenied", "--surface", "flaky"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["tool"], "echo");
  EXPECT_EQ(denied[0]["payload"]["reason"], "surface-unavailable");
}

// A launch is admitted only with its child alive at its end: one that exits while Las asks
// for its resources (after its tools passed) is not recorded admitted.
TEST_F(FederationTest, AChildThatExitsBeforeItsLaunchEndsIsNotAdmitted) {
  testing::AddVariantOf(*release_, "flaky", "brief", {"--exit-at-resources-list", "1"});
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}}, {"--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& name : testing::ListedNames(run.steps[0])) {
    EXPECT_NE(name.rfind("brief__", 0), 0u) << name;
  }
  EXPECT_TRUE(Replay({"--kind", "SurfaceAdmitted", "--surface", "brief"}).empty());
  auto rejected = Replay({"--kind", "SurfaceRejected", "--surface", "brief"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "start-failed");
}

// A signed tool whose schema Las cannot compile (a look-ahead pattern) is left out
// everywhere alike: not served, not in CatalogLoaded, not counted, and a call to it is
// denied with that reason under its surface.
TEST_F(FederationTest, AToolWithAnUncompilableSchemaIsLeftOutOfTheRecordsToo) {
  release_->AddSurface("ahead", {"/usr/bin/python3", release_->workspace() + "/mcp_child.py",
                                 "--lookahead-tool", "la"});
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}, CallStep("ahead__la", {{"a", "a"}}),
                    CallStep("ahead__echo", {{"text", "hi"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("ahead__echo"));
  EXPECT_FALSE(names.count("ahead__la"));
  EXPECT_TRUE(run.steps[1].contains("error")) << run.steps[1].dump();
  EXPECT_EQ(StepText(run.steps[2]), "hi");

  auto loaded = Replay({"--kind", "CatalogLoaded", "--surface", "ahead"});
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0]["payload"].dump().find("\"la\""), std::string::npos) << loaded[0].dump();
  auto withheld = Replay({"--kind", "ToolWithheld", "--surface", "ahead"});
  ASSERT_EQ(withheld.size(), 1u);
  EXPECT_EQ(withheld[0]["payload"]["reason"], "schema-unsupported");
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["surface"], "ahead");
  EXPECT_EQ(denied[0]["payload"]["tool"], "la");
  EXPECT_EQ(denied[0]["payload"]["reason"], "schema-unsupported");

  auto list = testing::RunCommand(testing::LasArgvWithEnv(
      release_->Environment(),
      {"list", "--json", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()}));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json catalog = json::parse(list.out);
  size_t entries = 0;
  for (const auto& tool : catalog["tools"]) entries += tool["surface"] == "ahead" ? 1 : 0;
  for (const auto& surface : catalog["surfaces"]) {
    if (surface["name"] == "ahead") {
      EXPECT_EQ(surface["tools"], entries);
    }
  }

  // `las check` says so before a server leaves it out (it said ok: probe L12).
  auto check = testing::RunCommand(testing::LasArgvWithEnv(
      release_->Environment(), {"check", "ahead", "--json", "--registry", release_->registry_path()}));
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  bool tools_failed = false;
  const json report = json::parse(check.out);
  for (const json& row : report["checks"]) {
    if (row["surface"] == "ahead" && row["check"] == "tools") {
      tools_failed = row["result"] == "fail" && row["reason"] == "schema-unsupported" &&
                     row["detail"].get<std::string>().find("la (") != std::string::npos;
      EXPECT_TRUE(tools_failed) << row.dump();
    }
  }
  EXPECT_TRUE(tools_failed) << check.out;
}

// Probe AC5: the official SDK client refused the whole tools/list (every surface's tools,
// Las's own too) when one inputSchema's root had no "type": "object". Such a tool is listed
// with it; a root that admits no object is left out (schema-unsupported). Likewise a
// boolean property schema, which the SDK refuses too: listed as {} or {"not":{}}, checked as
// signed (probe CU1).
TEST_F(FederationTest, ASchemaWithoutRootTypeIsListedAsAnObjectSchemaAndTheSdkListsAll) {
  release_->AddSurface("loose", {"/usr/bin/python3", release_->workspace() + "/mcp_child.py",
                                 "--untyped-tool", "free", "--string-root-tool", "scalar",
                                 "--boolean-property-tool", "flags"});
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}, CallStep("loose__free", {{"text", "hi"}}),
                    CallStep("loose__scalar", json::object()),
                    CallStep("loose__flags", {{"text", "any"}, {"any", {1, "x"}}}),
                    CallStep("loose__flags", {{"text", "never"}, {"never", 1}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.steps[0].contains("result")) << run.steps[0].dump();
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("loose__free"));
  EXPECT_TRUE(names.count("loose__flags"));
  EXPECT_TRUE(names.count("echo__echo"));
  EXPECT_TRUE(names.count("las__onboarding"));
  EXPECT_FALSE(names.count("loose__scalar"));
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool.dump();
  }
  EXPECT_EQ(StepText(run.steps[1]), "hi");
  EXPECT_TRUE(run.steps[2].contains("error")) << run.steps[2].dump();
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    if (tool["name"] != "loose__flags") continue;
    EXPECT_EQ(tool["inputSchema"]["properties"]["any"], json::object()) << tool.dump();
    EXPECT_EQ(tool["inputSchema"]["properties"]["never"], json({{"not", json::object()}}));
  }
  EXPECT_EQ(StepText(run.steps[3]), "any");
  EXPECT_EQ(run.steps[4]["error"]["code"], -32602) << run.steps[4].dump();
  auto withheld = Replay({"--kind", "ToolWithheld", "--surface", "loose"});
  ASSERT_EQ(withheld.size(), 1u);
  EXPECT_EQ(withheld[0]["payload"]["tool"], "scalar");
  EXPECT_EQ(withheld[0]["payload"]["reason"], "schema-unsupported");
}

// Children start concurrently (issue 4): two surfaces whose children each wait at start
// until both have started are both served. Started one after the other, the first would
// wait for the second past its start timeout and be left out.
TEST_F(FederationTest, ChildrenStartConcurrently) {
  const std::string meeting = tmp_.Sub("meeting");
  std::filesystem::create_directories(meeting);
  testing::AddVariantOf(*release_, "flaky", "meet1", {"--meet-at-start", meeting + ":2"});
  testing::AddVariantOf(*release_, "flaky", "meet2", {"--meet-at-start", meeting + ":2"});
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}}, {"--start-timeout", "20000", "--restart-delay", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("meet1__echo") && names.count("meet2__echo")) << run.err;
  for (const char* surface : {"meet1", "meet2"}) {
    EXPECT_TRUE(Replay({"--kind", "SurfaceRejected", "--surface", surface}).empty()) << surface;
  }
}

// A child that never answers holds up the catalog (and so the first initialize) for at
// most --start-timeout, then is left out; the default would wait 30 s.
TEST_F(FederationTest, StartTimeoutBoundsHowLongAMuteChildHoldsUpTheCatalog) {
  testing::AddVariantOf(*release_, "flaky", "mute", {"--silent", "1"});
  release_->Sign(1);
  const auto start = std::chrono::steady_clock::now();
  auto run = Serve({{{"op", "listTools"}}, CallStep("echo__echo", {{"message", "hi"}})},
                   {"--start-timeout", "1500", "--restart-delay", "0"});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_LT(took, std::chrono::seconds(20));
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("echo__echo"));
  for (const auto& name : names) EXPECT_NE(name.rfind("mute__", 0), 0u) << name;
  EXPECT_EQ(StepText(run.steps[1]), "Echo: hi");
  EXPECT_NE(run.err.find("surface mute left out (start-failed)"), std::string::npos) << run.err;
  auto rejected = Replay({"--kind", "SurfaceRejected", "--surface", "mute"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "start-failed");

  for (const char* bad : {"0", "-1", "x", "31536000001"}) {
    auto list = testing::RunCommand({LAS_EXECUTABLE, "list", "--log", tmp_.Sub("log"),
                                     "--registry", release_->registry_path(), "--start-timeout",
                                     bad});
    EXPECT_EQ(list.exit_code, 2) << bad << ": " << list.err;
  }
}

// A child stuck before it reads its stdin, and so before it answers initialize, does not
// outlive Las: a signal to `las serve` during federation aborts the launch under way (and
// exits 0, as any SIGTERM does); `las list`, which has no handler, and a SIGKILLed server
// take it with them through the child's parent-death signal.
TEST_F(FederationTest, NoChildOutlivesASignalDuringStartUp) {
  testing::AddVariantOf(*release_, "flaky", "stuck", {"--sleep-at-start", "987"});
  release_->Sign(1);
  const std::string marker = "--sleep-at-start";
  auto await_stuck = [&](bool running) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((ProcessesMentioning(marker) > 0) != running) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  };
  for (const char* verb : {"serve", "list"}) {
    for (const int signal : {SIGTERM, SIGKILL}) {
      SCOPED_TRACE(std::string(verb) + " " + strsignal(signal));
      testing::ChildProcess las(testing::LasArgvWithEnv(
          release_->Environment(),
          {verb, "--log", tmp_.Sub("log"), "--registry", release_->registry_path()}));
      ASSERT_TRUE(await_stuck(true)) << "the stuck child never started";
      las.Kill(signal);
      const int status = las.Wait();
      if (std::string(verb) == "serve" && signal == SIGTERM) {
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
      }
      EXPECT_TRUE(await_stuck(false)) << "the stuck child outlived las";
      KillProcessesMentioning(marker);
      // The killed server's children ended with it and were handed to this process (the
      // subreaper): reap them, or a later test of the same process sees them in LeftBehind()
      // (one gtest process running the whole suite, as under ThreadSanitizer: session 47).
      KillLeftBehind();
    }
  }
}

// A served surface `stuck` whose later children sleep at start while `stuck_now` exists: an
// onboarding check's own launch of it hangs until the check is ended.
class StuckCheckTest : public FederationTest {
 protected:
  void SetUp() override {
    FederationTest::SetUp();
    if (IsSkipped() || HasFailure()) return;
    stuck_now_ = tmp_.Sub("stuck-now");
    testing::AddVariantOf(*release_, "flaky", "stuck", {"--sleep-at-start-while", stuck_now_});
    release_->Sign(1);
    las_ = std::make_unique<testing::ChildProcess>(testing::LasArgvWithEnv(
        release_->Environment(), {"serve", "--log", tmp_.Sub("log"), "--registry",
                                  release_->registry_path(), "--start-timeout", "300000"}));
    las_->WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
    ASSERT_TRUE(las_->ReadLine().has_value());
    served_ = ProcessesMentioning(stuck_now_);  // the admitted `stuck`
    std::ofstream(stuck_now_).put('\n');  // from now on a new `stuck` child sleeps at start
  }

  void Check(int id) {
    las_->WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                    R"(,"method":"tools/call","params":{"name":"las__onboarding",)"
                    R"("arguments":{"action":"check","step":"surfaces"}}})");
  }

  // Until a check's `stuck` child is asleep in its start.
  void AwaitStuck() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(stuck_now_ + ".asleep") && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(std::filesystem::exists(stuck_now_ + ".asleep")) << "the check never started its child";
  }

  // Until no process of a check's `stuck` launch is left (the served one stays), or 30 s.
  // By this test's own path: tests running beside it start `stuck` children too.
  void WaitForChecksChildrenGone(int left) {
    const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (ProcessesMentioning(stuck_now_) > left && std::chrono::steady_clock::now() < gone_by) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  void AwaitChecksChildrenGone(int left = 0) {
    WaitForChecksChildrenGone(left);
    EXPECT_EQ(ProcessesMentioning(stuck_now_), left) << "a check's child lives on";
  }

  std::string stuck_now_;
  std::unique_ptr<testing::ChildProcess> las_;
  int served_ = 0;
};

// SIGTERM while a las__onboarding check waits for a child stuck in its start: the check's
// launches end with the server's children, nothing of the interrupted check is recorded,
// and the server exits at once instead of after the start timeout (probe E1).
TEST_F(StuckCheckTest, SigtermEndsAnOnboardingCheckUnderWay) {
  testing::ChildProcess& las = *las_;
  Check(2);
  AwaitStuck();
  las.Kill(SIGTERM);
  // Under a second here; the check's own start timeout was 15 s before it could be ended.
  const std::optional<int> status = las.WaitFor(std::chrono::seconds(10));
  ASSERT_TRUE(status.has_value()) << "las serve waited for the check's stuck child";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  AwaitChecksChildrenGone();  // the served one too: las has ended
  for (const char* kind : {"OnboardingStepCompleted", "OnboardingStepReset"}) {
    EXPECT_TRUE(Replay({"--kind", kind}).empty()) << kind << ": the interrupted check recorded";
  }
}

// A client that cancels its onboarding check ends it at once — its stuck child too — and
// frees its place: two cancelled checks do not hold both places until their children's
// start timeout (probe Q2).
TEST_F(StuckCheckTest, ACancelledOnboardingCheckEndsAndFreesItsPlace) {
  testing::ChildProcess& las = *las_;
  Check(2);
  Check(3);
  AwaitStuck();
  for (int id : {2, 3}) {
    las.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
                  std::to_string(id) + R"(,"reason":"the user gave up"}})");
  }
  // The stuck child is ended; the other check may still be on its way to its launch (the
  // CI of session 51 counted its child a moment later), so none is asserted gone until
  // both places are free again, below.
  WaitForChecksChildrenGone(served_);
  std::filesystem::remove(stuck_now_);  // a new check's children start normally
  // Both places are free again: a new check runs instead of "Too many onboarding checks".
  std::optional<json> answer;
  for (int attempt = 0; attempt < 50 && !answer; ++attempt) {
    Check(4);
    for (auto line = las.ReadLine(std::chrono::seconds(120)); line; line = las.ReadLine(std::chrono::seconds(120))) {
      const json reply = json::parse(*line);
      if (reply.value("id", json()) != 4) continue;  // what is left of the cancelled ones
      if (reply.contains("error")) {
        ASSERT_EQ(reply["error"]["message"], "Too many onboarding checks running; retry later");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // their ends are posted
      } else {
        answer = reply;
      }
      break;
    }
  }
  ASSERT_TRUE(answer.has_value()) << "both places stayed taken";
  EXPECT_TRUE(answer->contains("result")) << answer->dump();
  AwaitChecksChildrenGone(served_);  // both cancelled checks have ended, and left no child
  las.CloseStdin();
  EXPECT_EQ(las.Wait(), 0);
  size_t recorded = 0;
  for (const char* kind : {"OnboardingStepCompleted", "OnboardingStepReset"}) {
    for (const json& event : Replay({"--kind", kind})) recorded += event["payload"]["step"] == "surfaces";
  }
  EXPECT_EQ(recorded, 1u) << "only the check that ran to its end recorded";
}

// A refusal's detail that quotes a path that is not UTF-8 is printed with U+FFFD by
// `las list --json` (probe FA1: it aborted, exit 134).
TEST_F(FederationTest, ListJsonReplacesADetailThatIsNotUtf8) {
  release_->Sign(1);
  std::vector<std::string> env = release_->Environment();
  for (std::string& entry : env) {
    if (entry.rfind("LAS_WORKSPACE=", 0) == 0) entry = "LAS_WORKSPACE=" + tmp_.Sub("x\xff/missing");
  }
  auto list = testing::RunCommand(testing::LasArgvWithEnv(
      env, {"list", "--json", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()}));
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(json::parse(list.out, nullptr, false).is_object()) << list.out;
  EXPECT_NE(list.out.find("x\xEF\xBF\xBD/missing"), std::string::npos) << list.out;
}

// A served surface whose child exits is started again through the whole launch path: the
// launch checks on the bytes, the handshake and the signed tools. A start that fails is
// retried later (backoff); one whose bytes changed is never retried.
class SurfaceRestartTest : public FederationTest {
 protected:
  void SetUp() override {
    FederationTest::SetUp();
    if (IsSkipped() || HasFailure()) return;
    gate_ = tmp_.Sub("no-start");
    testing::AddVariantOf(*release_, "flaky", "gated", {"--exit-at-start-while", gate_});
    release_->Sign(1);
  }

  void StartServer(int64_t restart_delay_ms = 20, std::vector<std::string> extra_env = {}) {
    std::vector<std::string> env = release_->Environment();
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    server_ = std::make_unique<testing::ChildProcess>(testing::LasArgvWithEnv(
        env, {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path(),
              "--restart-delay", std::to_string(restart_delay_ms)}));
    server_->WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
    ASSERT_TRUE(server_->ReadLine().has_value());
  }

  json Call(const std::string& name, const json& arguments = json::object()) {
    const json request = {{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", "tools/call"},
                          {"params", {{"name", name}, {"arguments", arguments}}}};
    server_->WriteLine(request.dump());
    auto line = server_->ReadLine();
    return line ? json::parse(*line) : json();
  }

  // Calls gated__echo until it is served again (the surface was restarted).
  bool AwaitServed() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Call("gated__echo", {{"text", "back"}}).contains("result")) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // gated's SurfaceStopped events, once there are at least `count`.
  std::vector<json> AwaitStops(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (true) {
      auto stops = Replay({"--kind", "SurfaceStopped", "--surface", "gated"});
      if (stops.size() >= count || std::chrono::steady_clock::now() > deadline) return stops;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // `las sources --json`'s entry for `id`, read from the log alone.
  json OfflineSource(const std::string& id) {
    auto sources = testing::RunCommand({LAS_EXECUTABLE, "sources", "--json", "--log", tmp_.Sub("log")});
    EXPECT_EQ(sources.exit_code, 0) << sources.err;
    const json listed = json::parse(sources.out);
    for (const json& source : listed["sources"]) {
      if (source["id"] == id) return source;
    }
    ADD_FAILURE() << "no source " << id << " in " << sources.out;
    return json();
  }

  std::string gate_;
  std::unique_ptr<testing::ChildProcess> server_;
  int id_ = 1;
};

TEST_F(SurfaceRestartTest, AChildThatExitsIsStartedAgainAndServes) {
  StartServer();
  EXPECT_EQ(Call("gated__echo", {{"text", "first"}})["result"]["content"][0]["text"], "first");
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  ASSERT_TRUE(AwaitServed());
  EXPECT_EQ(Call("echo__echo", {{"message", "others"}})["result"]["content"][0]["text"],
            "Echo: others");
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(LeftBehind(), "") << "no child left behind";

  auto stops = Replay({"--kind", "SurfaceStopped"});
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0]["payload"]["surface"], "gated");
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stops[0]["payload"]["restart_after_ms"], 20);
  auto admitted = Replay({"--kind", "SurfaceAdmitted", "--surface", "gated"});
  auto loaded = Replay({"--kind", "CatalogLoaded", "--surface", "gated"});
  ASSERT_EQ(admitted.size(), 2u) << "admitted again, through the same checks";
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(admitted[0]["payload"], admitted[1]["payload"]);
  EXPECT_EQ(loaded[0]["payload"], loaded[1]["payload"]);
  EXPECT_LT(stops[0]["seq"], admitted[1]["seq"]);
  // Each call made while it was down was denied at once, before the log's request or any
  // child; the call that found it back reached the new child and completed.
  auto completed = Replay({"--kind", "ToolCallCompleted", "--surface", "gated"});
  ASSERT_EQ(completed.size(), 3u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok");
  EXPECT_EQ(completed[1]["payload"]["error_code"], "child_exited");
  EXPECT_EQ(completed[2]["payload"]["outcome"], "Ok");
  EXPECT_EQ(Replay({"--kind", "ToolCallRequested", "--surface", "gated"}).size(), 3u);
  for (const json& denied : Replay({"--kind", "ToolCallDenied", "--surface", "gated"})) {
    EXPECT_EQ(denied["payload"]["reason"], "surface-unavailable") << denied.dump();
  }
  // The offline view of the log shows it loaded again.
  EXPECT_GT(OfflineSource("gated")["counts"]["tools"], 0) << OfflineSource("gated").dump();
}

TEST_F(SurfaceRestartTest, AFailedStartIsRetriedLaterAndChangedBytesAreNever) {
  StartServer();
  std::ofstream(gate_) << "closed";
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  // The gate keeps every start failing: each retry waits twice as long as the one before.
  auto stops = AwaitStops(3);
  ASSERT_GE(stops.size(), 3u);
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stops[0]["payload"]["restart_after_ms"], 20);
  EXPECT_EQ(stops[1]["payload"]["reason"], "start-failed");
  EXPECT_EQ(stops[1]["payload"]["restart_after_ms"], 40);
  EXPECT_EQ(stops[2]["payload"]["reason"], "start-failed");
  EXPECT_EQ(stops[2]["payload"]["restart_after_ms"], 80);
  EXPECT_FALSE(Call("gated__echo", {{"text", "down"}}).contains("result"));
  std::filesystem::remove(gate_);
  ASSERT_TRUE(AwaitServed());

  // Now the child's script changes on disk: its next start fails the launch check on its
  // bytes, and no later attempt is made.
  const size_t before = Replay({"--kind", "SurfaceStopped", "--surface", "gated"}).size();
  std::ofstream(release_->workspace() + "/mcp_child.py", std::ios::app) << "# changed" << std::endl;
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  stops = AwaitStops(before + 2);
  ASSERT_EQ(stops.size(), before + 2);
  EXPECT_EQ(stops[before]["payload"]["reason"], "child-exited");
  const json& refused = stops[before + 1]["payload"];
  EXPECT_NE(refused["reason"], "start-failed");
  EXPECT_NE(refused["reason"], "child-exited");
  EXPECT_EQ(refused["restart_after_ms"], -1) << refused.dump();
  EXPECT_FALSE(Call("gated__echo", {{"text", "down"}}).contains("result"));
  EXPECT_EQ(Call("echo__echo", {{"message", "others"}})["result"]["content"][0]["text"],
            "Echo: others");
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(Replay({"--kind", "SurfaceStopped", "--surface", "gated"}).size(), before + 2)
      << "never tried again";
  EXPECT_EQ(OfflineSource("gated")["description"],
            "No catalog loaded for gated: " + refused["reason"].get<std::string>());
  EXPECT_EQ(LeftBehind(), "") << "no child left behind";
}

// A release file in a bad state for a moment — the trust store opened to the group by an
// editor's save, say — refuses a restart, and the restart is tried again later: it stopped
// the surface until Las restarted, though nothing was to be re-signed (probe JW7).
TEST_F(SurfaceRestartTest, AReleaseFileInABadStateForAMomentIsTriedAgain) {
  StartServer();
  namespace fs = std::filesystem;
  const std::string store = release_->trust_store_path();
  fs::permissions(store, fs::perms::group_read, fs::perm_options::add);
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  auto stops = AwaitStops(2);
  ASSERT_GE(stops.size(), 2u);
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stops[1]["payload"]["reason"], "file-permissions") << stops[1].dump();
  EXPECT_GT(stops[1]["payload"]["restart_after_ms"].get<int64_t>(), 0) << stops[1].dump();
  fs::permissions(store, fs::perms::group_read, fs::perm_options::remove);
  ASSERT_TRUE(AwaitServed());
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
}

// A signature file caught half-written (a copy or a deploy under way) is malformed, not
// forged: the restart is tried again, and admits once the whole file is back. It stopped
// the surface until Las restarted (probe KD3).
TEST_F(SurfaceRestartTest, AHalfWrittenSignatureFileIsTriedAgain) {
  StartServer();
  std::ifstream whole_file(release_->signature_path(), std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(whole_file)), std::istreambuf_iterator<char>());
  ASSERT_GT(whole.size(), 30u);
  std::ofstream(release_->signature_path(), std::ios::binary | std::ios::trunc) << whole.substr(0, 30);
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  auto stops = AwaitStops(2);
  ASSERT_GE(stops.size(), 2u);
  EXPECT_EQ(stops[1]["payload"]["reason"], "signature-format") << stops[1].dump();
  EXPECT_GT(stops[1]["payload"]["restart_after_ms"].get<int64_t>(), 0) << stops[1].dump();
  std::ofstream(release_->signature_path(), std::ios::binary | std::ios::trunc) << whole;
  ASSERT_TRUE(AwaitServed());
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
}

// A release signed under a rotated key, found at a child's restart, stops it as any changed
// release does, and the record names both keys: "release 1; this process serves 4" alone
// read as a rollback (probe IE3).
TEST_F(SurfaceRestartTest, ARotatedKeysReleaseFoundAtARestartNamesBothKeys) {
  release_->Sign(4);
  const std::string served_key = release_->key_id();
  StartServer();
  release_->RotateKey();
  release_->Sign(1);
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  auto stops = AwaitStops(2);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[1]["payload"]["reason"], "release-changed") << stops[1].dump();
  EXPECT_EQ(stops[1]["payload"]["detail"],
            "the release files now hold release 1 of key " + release_->key_id() +
                "; this process serves 4 of key " + served_key)
      << stops[1].dump();
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
}

// A release that expires while it is served stops its surfaces at the expiry: their
// children are ended and their calls fail until las restarts with a release that has not
// expired, whether or not a child ever stops by itself.
TEST_F(SurfaceRestartTest, AReleaseThatExpiresWhileServedStopsItsSurfaces) {
  // Long enough for the start to finish first: a sanitized start on a loaded machine took
  // more than 4 s, and its surfaces were left out as expired before the first call.
  constexpr int kExpiresInSeconds = testing::kSanitizedBuild ? 20 : 4;
  release_->Sign(1, kExpiresInSeconds);
  StartServer();
  ASSERT_TRUE(Call("gated__echo", {{"text", "before"}}).contains("result"));
  // A call the child holds when the release expires is cut off: recorded with the reason,
  // not as a shutdown of Las, which goes on serving (probe EX2).
  const int hung_id = ++id_;
  server_->WriteLine(json{{"jsonrpc", "2.0"}, {"id", hung_id}, {"method", "tools/call"},
                          {"params", {{"name", "gated__hang"}, {"arguments", json::object()}}}}
                         .dump());
  auto stops = AwaitStops(1);  // the expiry itself, no call needed
  const auto hung = server_->ReadLine();
  ASSERT_TRUE(hung.has_value());
  EXPECT_EQ(json::parse(*hung)["id"], hung_id) << *hung;
  EXPECT_TRUE(json::parse(*hung).contains("error")) << *hung;
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0]["payload"]["surface"], "gated");
  EXPECT_EQ(stops[0]["payload"]["reason"], "expired") << stops[0].dump();
  EXPECT_EQ(stops[0]["payload"]["restart_after_ms"], -1);
  EXPECT_NE(stops[0]["payload"]["detail"].get<std::string>().find("release 1 expired at "),
            std::string::npos)
      << stops[0].dump();
  const json after = Call("gated__echo", {{"text", "served after expiry"}});
  EXPECT_FALSE(after.contains("result"));
  // Told apart from a call that failed at a child: this one never reached one (probe FN5).
  EXPECT_EQ(after["error"]["message"], "Tool unavailable: its surface is not running")
      << after.dump();
  EXPECT_TRUE(Call("las__onboarding").contains("result")) << "Las's own tools keep serving";
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(Replay({"--kind", "SurfaceAdmitted", "--surface", "gated"}).size(), 1u);
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u) << "the call after the expiry never reached a child";
  EXPECT_EQ(denied[0]["payload"]["reason"], "surface-unavailable");
  auto cut_off = Replay({"--kind", "ToolCallCompleted", "--surface", "gated"});
  ASSERT_EQ(cut_off.size(), 2u);
  EXPECT_EQ(cut_off[1]["payload"]["outcome"], "TimedOut") << cut_off[1].dump();
  EXPECT_EQ(cut_off[1]["payload"]["error_code"], "expired") << cut_off[1].dump();
  EXPECT_EQ(LeftBehind(), "") << "the child was ended";
}

// An expiry centuries away (valid in a manifest, though `las release sign` caps it) is
// watched without spinning: the timer's span once overflowed and fired at once, again and
// again, and an idle server burnt a core (probe U1).
TEST_F(SurfaceRestartTest, AFarExpiryIsWatchedWithoutBurningACore) {
  constexpr int64_t kFourHundredYears = int64_t{400} * 365 * 24 * 3600;
  release_->Sign(1, kFourHundredYears);
  StartServer();
  ASSERT_TRUE(Call("gated__echo", {{"text", "served"}}).contains("result"));
  const auto cpu_seconds = [pid = server_->pid()] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::vector<std::string> field(13);
    for (auto& value : field) fields >> value;  // state ... stime: fields 3 to 15
    return static_cast<double>(std::stoll(field[11]) + std::stoll(field[12])) /
           static_cast<double>(::sysconf(_SC_CLK_TCK));
  };
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // idle time is what is measured
  EXPECT_LT(cpu_seconds() - before, 0.5) << "an idle server spent its CPU";
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
}

// The release is checked again at the restart itself: one that expired while the restart
// waited admits nothing.
TEST_F(SurfaceRestartTest, AReleaseThatExpiresDuringTheWaitStartsNothing) {
  // Long enough for the start to finish first: a sanitized start on a loaded machine took
  // more than 4 s, and its surfaces were left out as expired before the first call.
  constexpr int kExpiresInSeconds = testing::kSanitizedBuild ? 20 : 4;
  release_->Sign(1, kExpiresInSeconds);
  StartServer(kExpiresInSeconds * 1000 + 500);
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  auto stops = AwaitStops(2);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_GT(stops[0]["payload"]["restart_after_ms"], 0);
  EXPECT_EQ(stops[1]["payload"]["reason"], "expired") << stops[1].dump();
  EXPECT_EQ(stops[1]["payload"]["restart_after_ms"], -1);
  EXPECT_FALSE(Call("gated__echo", {{"text", "down"}}).contains("result"));
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(Replay({"--kind", "SurfaceAdmitted", "--surface", "gated"}).size(), 1u);
}

// A signal ends Las at once though no child is left to end (its one surface stopped).
TEST_F(SurfaceRestartTest, ASignalEndsLasWhileItsOnlySurfaceWaitsForARestart) {
  StartServer(60'000, {"LAS_ONLY=gated"});
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  ASSERT_EQ(AwaitStops(1).size(), 1u);
  server_->Kill(SIGTERM);
  EXPECT_EQ(server_->WaitFor(std::chrono::seconds(20)), std::optional<int>(0))
      << "las serve must exit after a signal";
  EXPECT_EQ(LeftBehind(), "") << "no child left behind";
}

// Ending Las while a restart waits or is under way ends everything at once.
// Ending at EOF, Las lets its calls in flight settle, and starts no surface again
// meanwhile: a restart due during that wait would admit a child only to end it (probe V1).
// The restart is due 5 s after the stop and the call settles 7 s after the end of input,
// so the restart falls due during the wait even when this test is slow to reach it (with
// 1 s and 3 s, a loaded machine saw the restart before the end of input).
TEST_F(SurfaceRestartTest, NoSurfaceStartsAgainWhileTheCallsInFlightSettle) {
  StartServer(5000);
  EXPECT_TRUE(Call("gated__crash").contains("error"));  // stopped; started again in 5 s
  ASSERT_GE(AwaitStops(1).size(), 1u);
  server_->WriteLine(json{{"jsonrpc", "2.0"}, {"id", 99}, {"method", "tools/call"},
                          {"params", {{"name", "flaky__slow"}, {"arguments", {{"ms", 7000}}}}}}
                         .dump());
  server_->CloseStdin();  // at once: the call is still in flight
  auto answer = server_->ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(json::parse(*answer).contains("result")) << *answer;
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(Replay({"--kind", "SurfaceAdmitted", "--surface", "gated"}).size(), 1u)
      << "started again while las was ending";
}

TEST_F(SurfaceRestartTest, EndingLasCancelsAPendingRestart) {
  StartServer();
  std::ofstream(gate_) << "closed";
  EXPECT_TRUE(Call("gated__crash").contains("error"));
  ASSERT_GE(AwaitStops(2).size(), 2u);
  server_->CloseStdin();
  EXPECT_EQ(server_->Wait(), 0);
  EXPECT_EQ(LeftBehind(), "") << "no child left behind";
}

TEST_F(FederationTest, GarbageAndOversizedAnswersFailThatCallAndTheSessionGoesOn) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__huge"), CallStep("flaky__echo", {{"text", "after huge"}}),
                    CallStep("flaky__garbage"),
                    CallStep("flaky__echo", {{"text", "after garbage"}})},
                   {"--call-timeout", "3000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["ok"], false);
  // The child ran the tool and answered: the agent is told its answer was not relayed (not
  // that the call failed somewhere), and the ledger says refused, not failed (probe DY1).
  EXPECT_NE(run.steps[0]["error"]["message"].get<std::string>().find("larger than Las relays"),
            std::string::npos)
      << run.steps[0];
  EXPECT_EQ(StepText(run.steps[1]), "after huge");
  EXPECT_EQ(StepText(run.steps[3]), "after garbage");
  auto completed = Replay({"--kind", "ToolCallCompleted", "--surface", "flaky"});
  ASSERT_GE(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[0]["payload"]["error_code"], "response_too_large");
}

// An answer the child gave and Las did not relay is told, in Las's words, from a call that
// failed: the tool answered (it may have acted), so a client does not retry it blindly
// (probe JV2: each was the bare "Tool call failed"). A child's error stays its own text's
// secret: only that it answered an error is said.
TEST_F(FederationTest, AnAnswerNotRelayedIsToldFromAFailureInLassWords) {
  release_->Sign(1);
  const json no_text = json::parse(R"({"result":{"content":[{"type":"text"}]}})");
  auto run = Serve({CallStep("flaky__two_verdicts"), CallStep("flaky__echo", no_text),
                    CallStep("flaky__malformed_answer"), CallStep("flaky__error"),
                    CallStep("flaky__echo", {{"text", "next"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // As the SDK client shows them: "MCP error <code>: <message>".
  const std::string not_relayed =
      "MCP error -32603: Tool call failed: the tool answered, but Las did not relay its answer";
  for (int i : {0, 1, 2}) {
    EXPECT_EQ(run.steps[i]["error"]["code"], -32603) << run.steps[i].dump();
    EXPECT_EQ(run.steps[i]["error"]["message"], not_relayed) << run.steps[i].dump();
  }
  EXPECT_EQ(run.steps[3]["error"]["message"], "MCP error -32603: Tool call failed: the tool answered an error")
      << run.steps[3].dump();
  EXPECT_EQ(run.steps[3].dump().find("CHILD-CONTROLLED"), std::string::npos);
  EXPECT_EQ(StepText(run.steps[4]), "next");
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 5u);
  EXPECT_EQ(completed[0]["payload"]["error_code"], "result-refused");
  EXPECT_EQ(completed[1]["payload"]["error_code"], "result-malformed");
  EXPECT_EQ(completed[2]["payload"]["error_code"], "malformed_response");
  EXPECT_EQ(completed[3]["payload"]["error_code"], "remote_error");
}

// An answer of several MiB — a screenshot in base64 — reaches the agent as a handle, as it
// would reach a client that called the child directly (probe DY1: over 4 MiB it failed).
TEST_F(FederationTest, AnAnswerOfTenMiBBecomesAHandle) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__huge", {{"mib", 10}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps[0]["ok"], true) << run.steps[0].dump().substr(0, 400);
  const json handle = run.steps[0]["result"]["structuredContent"]["handle"];
  EXPECT_GT(handle["size"].get<uint64_t>(), 10u * 1024 * 1024) << handle;
  EXPECT_EQ(Replay({"--kind", "HandleCreated"}).size(), 1u);
}

TEST_F(FederationTest, CallTimeoutAnswersGenericallyAndLeavesTheCallTimedOut) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__hang"), CallStep("echo__echo", {{"message", "x"}})},
                   {"--call-timeout", "300"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32001);
  EXPECT_EQ(run.steps[1]["ok"], true);
  auto completed = Replay({"--kind", "ToolCallCompleted", "--surface", "flaky"});
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "TimedOut");
}

// A child that takes calls and answers none holds at most --max-calls-per-surface of them;
// the next is refused at once and recorded, other surfaces go on, and a settled call frees
// its place.
TEST_F(FederationTest, CallsInFlightPerSurfaceAreBounded) {
  release_->Sign(1);
  const json hang = {{"name", "flaky__hang"}};
  auto run = Serve({{{"op", "concurrentCalls"},
                     {"calls", json::array({hang, hang, hang,
                                            {{"name", "echo__echo"}, {"arguments", {{"message", "x"}}}}})}},
                    CallStep("flaky__echo", {{"text", "after"}})},
                   {"--max-calls-per-surface", "2", "--call-timeout", "1500"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps[0]["ok"], true) << run.steps[0];
  std::multiset<int> codes;
  for (const json& call : run.steps[0]["result"]) {
    if (call["ok"] == false) codes.insert(call["error"]["code"].get<int>());
  }
  // Two hung until their timeout; the third was refused when it came.
  EXPECT_EQ(codes, (std::multiset<int>{-32603, -32001, -32001})) << run.steps[0];
  EXPECT_EQ(run.steps[0]["result"][3]["ok"], true) << run.steps[0];
  EXPECT_EQ(StepText(run.steps[1]), "after");
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "too-many-calls");
  EXPECT_EQ(denied[0]["payload"]["detail"],
            "the surface's places for calls in flight (2, every session's together: "
            "--max-calls-per-surface) are taken")
      << "which bound, and how large (probe IS3)";
  EXPECT_EQ(denied[0]["payload"]["surface"], "flaky");
}

TEST_F(FederationTest, AChildFloodingStderrKeepsServingAndNothingOfItReachesLas) {
  release_->Sign(1);
  auto run = Serve({CallStep("noisy__echo", {{"text", "quiet please"}}),
                    CallStep("noisy__add", {{"a", 2}, {"b", 3}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(StepText(run.steps[0]), "quiet please");
  EXPECT_EQ(StepText(run.steps[1]), "5");
  EXPECT_EQ(run.err.find("flood"), std::string::npos) << "child stderr never reaches Las's stderr";
}

// The log's catalog follows what each start serves (probe AF1): a surface a later start
// leaves out — skipped, no longer signed and configured, its whole release refused — is
// recorded refused with the reason, once, instead of staying "admitted" with its old tools
// in `las inspect catalog` and `las sources`.
TEST_F(FederationTest, TheLogsCatalogRecordsEverySurfaceALaterStartNoLongerServes) {
  auto recorded = [&](const std::string& surface) {
    auto run = testing::RunCommand({LAS_EXECUTABLE, "inspect", "catalog", "--log", tmp_.Sub("log"), "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const json catalog = json::parse(run.out);
    for (const json& entry : catalog["surfaces"]) {
      if (entry["surface"] == surface) return entry;
    }
    return json();
  };
  release_->Sign(2);
  ListOnce();
  ASSERT_EQ(recorded("echo")["admitted"], true);
  ASSERT_EQ(recorded("lem")["admitted"], true);

  ListOnce({"LAS_SKIP=echo"});
  EXPECT_EQ(recorded("echo")["admitted"], false);
  EXPECT_EQ(recorded("echo")["reason"], "skipped");
  EXPECT_EQ(recorded("echo")["tools"], json::array());

  std::erase_if(release_->manifest().surfaces, [](const auto& s) { return s.name == "lem"; });
  release_->Sign(3);  // also writes a registry without lem
  ListOnce();
  EXPECT_EQ(recorded("echo")["admitted"], true) << "served again";
  EXPECT_EQ(recorded("lem")["admitted"], false);
  EXPECT_EQ(recorded("lem")["reason"], "not-in-registry");

  release_->Sign(1);  // a rollback: the whole release is refused
  ListOnce();
  EXPECT_EQ(recorded("echo")["admitted"], false);
  EXPECT_EQ(recorded("echo")["reason"], "release-rejected");
  EXPECT_EQ(recorded("echo")["detail"], "rollback");
  const size_t refusals = Replay({"--kind", "SurfaceRejected"}).size();
  ListOnce();
  EXPECT_EQ(Replay({"--kind", "SurfaceRejected"}).size(), refusals)
      << "a surface already recorded refused is not recorded again";
}

// A surface last recorded skipped, then dropped by a newer release, was recorded skipped
// for good: a skip says nothing of what the release serves, so its grants stayed unmarked.
TEST_F(FederationTest, ASkippedSurfaceALaterReleaseDropsIsRecordedAsDropped) {
  auto echo_rejections = [&] {
    std::vector<json> echo;
    for (const json& event : Replay({"--kind", "SurfaceRejected", "--surface", "echo"})) {
      echo.push_back(event["payload"]);
    }
    return echo;
  };
  release_->Sign(2);
  ListOnce();
  ListOnce({"LAS_SKIP=echo"});
  ASSERT_EQ(echo_rejections().size(), 1u);
  EXPECT_EQ(echo_rejections()[0]["reason"], "skipped");
  ListOnce({"LAS_SKIP=echo"});
  EXPECT_EQ(echo_rejections().size(), 1u) << "skipped again: nothing new to record";

  std::erase_if(release_->manifest().surfaces, [](const auto& s) { return s.name == "echo"; });
  release_->Sign(3);  // also writes a registry without echo
  ListOnce();
  const std::vector<json> rejections = echo_rejections();
  ASSERT_EQ(rejections.size(), 2u);
  EXPECT_EQ(rejections[1]["reason"], "not-in-registry");
  ListOnce();
  EXPECT_EQ(echo_rejections().size(), 2u) << "recorded once";
}

TEST_F(FederationTest, TheWatermarkAdvancesOnceAndARestartKeepsIt) {
  release_->Sign(1);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  auto advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 1u);
  EXPECT_EQ(advanced[0]["payload"]["from_sequence"], 0);
  EXPECT_EQ(advanced[0]["payload"]["to_sequence"], 1);
  EXPECT_EQ(Replay({"--kind", "ReleaseAccepted"}).size(), 2u) << "the restart re-verified it";
}

// A run that leaves every surface out (LAS_ONLY naming none, here) serves nothing of the
// release, so it does not use up the release's sequence; a release that binds no surface at
// all moves the watermark at once — signed to make older releases a rollback (probe BW3).
TEST_F(FederationTest, OnlyAReleaseThatServesOrBindsNothingMovesTheWatermark) {
  release_->Sign(1);
  auto none = Serve({{{"op", "ping"}}}, {}, {{"LAS_ONLY", ","}});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(Replay({"--kind", "ReleaseAccepted"}).size(), 1u);
  EXPECT_EQ(Replay({"--kind", "WatermarkAdvanced"}).size(), 0u) << "nothing was served";

  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  auto advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 1u);
  EXPECT_EQ(advanced[0]["payload"]["to_sequence"], 1);

  release_->manifest().surfaces.clear();
  release_->Sign(2);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 2u);
  EXPECT_EQ(advanced[1]["payload"]["from_sequence"], 1);
  EXPECT_EQ(advanced[1]["payload"]["to_sequence"], 2);
}

// A watermark file lowered by hand (or replaced by an older copy) is below the log's
// record: admission goes by the log, and stderr says the file was lowered; it was raised
// again silently by the next release (probe JW4).
TEST_F(FederationTest, AWatermarkFileBelowTheLogsRecordIsNoted) {
  release_->Sign(1);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  const std::string older = tmp_.Sub("watermark-at-1");
  std::filesystem::copy_file(release_->watermark_path(), older);
  release_->Sign(2);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  std::filesystem::copy_file(older, release_->watermark_path(),
                             std::filesystem::copy_options::overwrite_existing);
  release_->Sign(3);
  auto run = Serve({{{"op", "ping"}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("the watermark file records sequence 1 for key " + release_->key_id() +
                         ", below the 2 the log recorded: it was lowered or replaced by an "
                         "older copy"),
            std::string::npos)
      << run.err;
  auto advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 3u);
  EXPECT_EQ(advanced[2]["payload"]["to_sequence"], 3);
  auto again = Serve({{{"op", "ping"}}});
  EXPECT_EQ(again.err.find("below the"), std::string::npos) << "said once: " << again.err;
}

// The log keeps each key's watermark too (WatermarkAdvanced): a deleted watermark file does
// not re-open rollback to an older release once the log has seen a newer one admitted.
TEST_F(FederationTest, TheLogsWatermarkRefusesARollbackAfterTheFileIsDeleted) {
  release_->Sign(2);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  release_->Sign(1);
  ASSERT_TRUE(std::filesystem::remove(release_->watermark_path()));
  auto run = Serve({{{"op", "listTools"}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    EXPECT_EQ(tool["name"].get<std::string>().rfind("las__", 0), 0u) << tool["name"];
  }
  // Stderr says which sequences clashed and that the log's record decided (probe IE2).
  EXPECT_NE(run.err.find("release rejected (rollback: sequence 1 is below the watermark 2 of key "),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("(as the log recorded it; the watermark file is missing)); no surface admitted"),
            std::string::npos)
      << run.err;
  auto rejected = Replay({"--kind", "ReleaseRejected"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "rollback");
  EXPECT_EQ(rejected[0]["payload"]["release_sequence"], 1);
  EXPECT_NE(rejected[0]["payload"]["detail"].get<std::string>().find(
                "below the watermark 2 of key"),
            std::string::npos)
      << rejected[0].dump();
  EXPECT_NE(rejected[0]["payload"]["detail"].get<std::string>().find("as the log recorded it"),
            std::string::npos)
      << rejected[0].dump();
  EXPECT_EQ(Replay({"--kind", "WatermarkAdvanced"}).size(), 1u) << "nothing moved back";
}

// An auditor's question the signatures cannot answer: was each release's key trusted?
// `las replay --trust-store` names each recorded release whose key the store does not list
// and exits 1; with every key listed (selected or not) it passes (probe IE1: the docs said
// keeping the old key listed let replay re-verify, while replay never read a trust store).
TEST_F(FederationTest, ReplayWithATrustStoreNamesReleasesOfKeysItDoesNotList) {
  release_->Sign(1);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  const std::string first_key = release_->key_id();
  auto read = [](const std::string& path) {
    std::ifstream file(path);
    return std::string((std::istreambuf_iterator<char>(file)), {});
  };
  const std::string first_store = read(release_->trust_store_path());
  release_->RotateKey();
  release_->Sign(1);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  ASSERT_EQ(Replay({"--kind", "ReleaseAccepted"}).size(), 2u);

  auto replay = [&](const std::string& store) {
    return testing::RunCommand({LAS_EXECUTABLE, "replay", "--summary", "--log", tmp_.Sub("log"),
                                "--trust-store", store, "--snapshot-key", ""});
  };
  const auto rotated_only = replay(release_->trust_store_path());
  EXPECT_EQ(rotated_only.exit_code, 1) << rotated_only.err;
  const json summary = json::parse(rotated_only.out.substr(rotated_only.out.rfind("{\"summary\"")))["summary"];
  EXPECT_EQ(summary["ok"], false);
  EXPECT_EQ(summary["verified"], summary["head"]["seq"]) << "the chain itself verified";
  ASSERT_EQ(summary["untrusted_releases"].size(), 1u) << summary.dump();
  EXPECT_EQ(summary["untrusted_releases"][0]["key_id"], first_key);
  EXPECT_EQ(summary["untrusted_releases"][0]["release"], 1);
  EXPECT_NE(rotated_only.err.find("release 1 (event " +
                                  summary["untrusted_releases"][0]["seq"].dump() +
                                  ") was signed by key " + first_key + ", which " +
                                  release_->trust_store_path() + " does not list"),
            std::string::npos)
      << rotated_only.err;

  // Both keys listed, the new one selected: every release was trusted.
  auto both = trust::ParseTrustStore(first_store);
  auto now = trust::ParseTrustStore(read(release_->trust_store_path()));
  ASSERT_TRUE(both.ok() && now.ok());
  both->keys.push_back(now->selected());
  both->selected_key_id = now->selected_key_id;
  const std::string both_path = tmp_.Sub("both-keys.json");
  {
    std::ofstream(both_path) << trust::SerializeTrustStore(*both);
  }
  std::filesystem::permissions(both_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const auto listed = replay(both_path);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out.substr(listed.out.rfind("{\"summary\"")))["summary"]["untrusted_releases"],
            json::array());

  const auto missing = replay(tmp_.Sub("no-such-store.json"));
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_NE(missing.err.find("--trust-store: "), std::string::npos) << missing.err;
}

// A release that another log's server already moved the shared watermark file to still
// moves this log's own watermark, so deleting the file does not re-open rollback here
// either (probe CX1: only the file's move was recorded, and this log then served release 1).
TEST_F(FederationTest, ALogRecordsItsWatermarkEvenWhenTheFileHeldItAlready) {
  release_->Sign(2);
  auto other = testing::RunServe(tmp_.Sub("other-log"), release_->registry_path(),
                                 testing::EnvObject(release_->Environment(), json::object()),
                                 {{{"op", "ping"}}});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  auto advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 1u) << "the file held 2 already, this log nothing";
  EXPECT_EQ(advanced[0]["payload"]["from_sequence"], 0);
  EXPECT_EQ(advanced[0]["payload"]["to_sequence"], 2);

  release_->Sign(1);
  ASSERT_TRUE(std::filesystem::remove(release_->watermark_path()));
  auto run = Serve({{{"op", "listTools"}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("release rejected (rollback: sequence 1 is below the watermark 2"),
            std::string::npos)
      << run.err;
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    EXPECT_EQ(tool["name"].get<std::string>().rfind("las__", 0), 0u) << tool["name"];
  }
}

// A watermark that cannot move refuses the release before anything is served: otherwise a
// replayed older release would be served too, with the log saying "rejected". Refusals after
// the signature verified name the release (key, sequence, digest).
TEST_F(FederationTest, AWatermarkThatCannotMoveRefusesTheReleaseAndRefusalsNameIt) {
  release_->Sign(2);
  const std::string nowhere = tmp_.Sub("missing-dir") + "/watermark.json";
  json env = testing::EnvObject(release_->Environment());
  env["LAS_RELEASE_WATERMARK"] = nowhere;
  auto refused = testing::RunServe(tmp_.Sub("log"), release_->registry_path(), env,
                                   {{{"op", "listTools"}}});
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  for (const auto& tool : refused.steps[0]["result"]["tools"]) {
    EXPECT_EQ(tool["name"].get<std::string>().rfind("las__", 0), 0u) << tool["name"];
  }
  EXPECT_TRUE(Replay({"--kind", "SurfaceAdmitted"}).empty());
  auto rejected = Replay({"--kind", "ReleaseRejected"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "io-error");
  EXPECT_EQ(rejected[0]["payload"]["release_sequence"], 2);
  EXPECT_EQ(rejected[0]["payload"]["manifest_sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(rejected[0]["payload"]["key_id"].get<std::string>().empty());

  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);  // admits 2: the watermark moves
  release_->Sign(1);
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  rejected = Replay({"--kind", "ReleaseRejected"});
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[1]["payload"]["reason"], "rollback");
  EXPECT_EQ(rejected[1]["payload"]["release_sequence"], 1);
  EXPECT_EQ(rejected[1]["payload"]["key_id"], rejected[0]["payload"]["key_id"]);
}

// A ping — the one request MCP lets a client send before initialize is answered — is
// answered while a child still starts; the rest waits for the children, in order (probe
// BC1: a ping waited up to --start-timeout, and a supervisor took Las for dead).
TEST_F(FederationTest, APingIsAnsweredWhileTheChildrenStillStart) {
  const std::string gate = AddSlowSurface();
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto serve_process = StartServe("120000");
  testing::ChildProcess& serve = *serve_process;
  serve.WriteLine(R"({"jsonrpc":"2.0","id":"p0","method":"ping"})");
  serve.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  serve.WriteLine(R"({"jsonrpc":"2.0","id":"p1","method":"ping","params":{}})");
  for (const char* id : {"p0", "p1"}) {
    auto answer = serve.ReadLine(std::chrono::seconds(30));
    ASSERT_TRUE(answer.has_value()) << "no answer to ping " << id << " while slow starts";
    EXPECT_EQ(json::parse(*answer), json::parse(std::string(R"({"jsonrpc":"2.0","id":")") + id +
                                                R"(","result":{}})"));
  }
  EXPECT_TRUE(std::filesystem::exists(gate)) << "answered before slow could finish starting";
  // More lines than are held at once (HeldInput::kMostHeldLines): reading pauses, and
  // every one is answered, in order, once the session takes them.
  constexpr int kWaiting = 300;
  for (int i = 0; i < kWaiting; ++i) {
    serve.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(100 + i) +
                    R"(,"method":"ping","params":{"_meta":{}}})");
  }
  std::filesystem::remove(gate);
  auto initialized = serve.ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(initialized.has_value());
  EXPECT_EQ(json::parse(*initialized)["id"], 1);
  EXPECT_TRUE(json::parse(*initialized).contains("result")) << *initialized;
  for (int i = 0; i < kWaiting; ++i) {
    auto answer = serve.ReadLine(std::chrono::seconds(60));
    ASSERT_TRUE(answer.has_value()) << i;
    EXPECT_EQ(json::parse(*answer)["id"], 100 + i);
  }
  serve.WriteLine(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow__echo","arguments":{"text":"up"}}})");
  auto called = serve.ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(called.has_value());
  EXPECT_TRUE(json::parse(*called).contains("result")) << *called;
  serve.CloseStdin();
  EXPECT_EQ(serve.Wait(), 0);
}

// A client gone for good while a child still starts (stdin at its end, stdout's reader
// closed) does not keep `las serve`, and the log's lock, until --start-timeout: the start
// is ended then (probe FN1: a restarted client's `las serve` found the log held for 30 s).
TEST_F(FederationTest, AClientGoneWhileTheChildrenStartEndsTheStart) {
  const std::string gate = AddSlowSurface();  // never opened: slow starts for the whole test
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto serve_process = StartServe("600000");
  testing::ChildProcess& serve = *serve_process;
  serve.WriteLine(R"({"jsonrpc":"2.0","id":"p0","method":"ping"})");
  ASSERT_TRUE(serve.ReadLine(std::chrono::seconds(30)).has_value()) << "stdin is read meanwhile";
  serve.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");  // held
  serve.CloseStdin();
  serve.CloseStdout();
  const std::optional<int> status = serve.WaitFor(std::chrono::seconds(60));
  if (!status) serve.Kill(SIGKILL);
  ASSERT_TRUE(status.has_value()) << "still waiting for the slow child with no client left";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 9)
      << "a request went unrun (probe FO3): " << *status;
  EXPECT_TRUE(std::filesystem::exists(gate)) << "ended before slow could finish starting";
  testing::ChildProcess again(testing::LasArgvWithEnv(
      release_->Environment(), {"serve", "--embedded", "--log", tmp_.Sub("log"), "--registry",
                                release_->registry_path(), "--start-timeout", "1"}));
  again.CloseStdin();
  const std::optional<int> next = again.WaitFor(std::chrono::seconds(60));
  if (!next) again.Kill(SIGKILL);
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(WIFEXITED(*next) && WEXITSTATUS(*next) != 7) << "the log's lock was still held";
}

// Probe HH1: with as many lines held as a start may hold, reading paused, so stdin's end
// went unseen: the start was waited for, and the held call then ran, for no one. Probe
// HJ1: a call sent after the lines held is not looked at, and exit 9 still says that
// requests may have gone unrun.
TEST_F(FederationTest, AClientGoneWhileTheStartHoldsAllItMayStillEndsTheStart) {
  const std::string gate = AddSlowSurface();  // never opened: slow starts for the whole test
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  const std::string call =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo__echo","arguments":{"text":"x"}}})";
  // Probe HL1: 254 notifications alone, with stdin's end held after them, are no request.
  struct Case {
    const char* name;
    bool call_first;
    int notifications;
    bool call_last;
    int exit_code;
  };
  for (const Case& c : {Case{"first", true, 400, false, 9}, Case{"last", false, 400, true, 9},
                        Case{"none", false, 254, false, 0}}) {
    const std::string log_dir = tmp_.Sub(std::string("log-") + c.name);
    testing::ChildProcess serve(testing::LasArgvWithEnv(
        release_->Environment(), {"serve", "--log", log_dir, "--registry", release_->registry_path(),
                                  "--start-timeout", "600000"}));
    if (c.call_first) serve.WriteLine(call);
    for (int i = 0; i < c.notifications; ++i) {
      serve.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }
    if (c.call_last) serve.WriteLine(call);
    serve.CloseStdin();
    serve.CloseStdout();
    const std::optional<int> status = serve.WaitFor(std::chrono::seconds(60));
    if (!status) serve.Kill(SIGKILL);
    ASSERT_TRUE(status.has_value()) << "still waiting for the slow child with no client left";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == c.exit_code) << c.name << ": " << *status;
    EXPECT_TRUE(std::filesystem::exists(gate)) << "ended before slow could finish starting";
    EXPECT_TRUE(testing::ReplayEvents(log_dir, {"--kind", "ToolCallRequested"}).empty())
        << "the call was not run";
  }
}

// Probe HJ6: stdin a regular file, which never hangs up: with stdout's reader gone and the
// start holding all it may, the start was waited for and the held call ran for no one.
TEST_F(FederationTest, AFileOnStdinWithNoReaderEndsTheStartOnceItHoldsAllItMay) {
  const std::string gate = AddSlowSurface();  // never opened: slow starts for the whole test
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  const std::string input = tmp_.Sub("input.jsonl");
  {
    std::ofstream out(input);
    for (int i = 0; i < 400; ++i) out << R"({"jsonrpc":"2.0","method":"notifications/initialized"})" << "\n";
    out << R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo__echo","arguments":{"text":"x"}}})"
        << "\n";
  }
  auto quoted = [](const std::string& word) {
    std::string out = "'";
    for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  std::string command = "timeout 60 ";
  for (const std::string& word : testing::LasArgvWithEnv(
           release_->Environment(), {"serve", "--log", tmp_.Sub("log"), "--registry",
                                     release_->registry_path(), "--start-timeout", "600000"})) {
    command += quoted(word) + " ";
  }
  command += "< " + quoted(input) + " | true; echo ${PIPESTATUS[0]}";
  const testing::CommandResult run = testing::RunCommand({"/bin/bash", "-c", command});
  EXPECT_EQ(run.out, "9\n") << run.err;
  EXPECT_TRUE(std::filesystem::exists(gate)) << "ended before slow could finish starting";
  EXPECT_TRUE(testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallRequested"}).empty())
      << "the call was not run";
}

// A signal while a child still starts ends the start; the requests held for the session
// go unrun, and the exit says so (probe HB2: exit 0, as if every request had an answer).
// With nothing held that is owed an answer — a notification is not (probe HD3) — it is 0.
TEST_F(FederationTest, ASignalWhileTheChildrenStartSaysTheHeldRequestsWentUnrun) {
  const std::string gate = AddSlowSurface();  // never opened: slow starts for the whole test
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  for (const char* held : {R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})",
                           R"({"jsonrpc":"2.0","method":"notifications/initialized"})", ""}) {
    const bool holding = std::string(held).find("\"id\"") != std::string::npos;
    auto serve_process = StartServe("600000");
    testing::ChildProcess& serve = *serve_process;
    serve.WriteLine(R"({"jsonrpc":"2.0","id":"p0","method":"ping"})");
    ASSERT_TRUE(serve.ReadLine(std::chrono::seconds(30)).has_value()) << "stdin is read meanwhile";
    if (*held != '\0') serve.WriteLine(held);
    serve.WriteLine(R"({"jsonrpc":"2.0","id":"p1","method":"ping"})");
    ASSERT_TRUE(serve.ReadLine(std::chrono::seconds(30)).has_value()) << "the held line was read";
    serve.Kill(SIGTERM);
    const std::optional<int> status = serve.WaitFor(std::chrono::seconds(60));
    if (!status) serve.Kill(SIGKILL);
    ASSERT_TRUE(status.has_value()) << "still waiting for the slow child after SIGTERM";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == (holding ? 9 : 0)) << holding << ": " << *status;
    EXPECT_TRUE(std::filesystem::exists(gate)) << "ended before slow could finish starting";
  }
}

// Initializes `serve`'s session, expects a call of `tool` refused, and ends the session.
void ExpectRefusedThenEnd(testing::ChildProcess& serve, const std::string& tool,
                          const json& arguments) {
  serve.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  ASSERT_TRUE(serve.ReadLine().has_value());
  serve.WriteLine(json{{"jsonrpc", "2.0"},
                       {"id", 2},
                       {"method", "tools/call"},
                       {"params", {{"name", tool}, {"arguments", arguments}}}}
                      .dump());
  auto answer = serve.ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(answer.has_value());
  EXPECT_FALSE(json::parse(*answer).contains("result")) << *answer;
  serve.CloseStdin();
  EXPECT_EQ(serve.Wait(), 0);
}

// Two `las serve` started at once with different releases of one key: the one whose
// watermark commit comes last finds the newer release admitted (rollback) and stops every
// surface it admitted, rather than serve a release the watermark no longer admits.
TEST_F(FederationTest, AReleaseSupersededWhileItStartsStopsEverySurfaceItAdmitted) {
  const std::string gate = AddSlowSurface();
  ASSERT_FALSE(HasFailure());
  release_->Sign(2);
  // The slow surface waits for the gate, which opens only after the newer server has run:
  // under a sanitizer on a loaded machine that took over the default 30 s start timeout,
  // and the slow surface was left out (ASan run, session 46).
  auto older_process = StartServe("300000");
  testing::ChildProcess& older = *older_process;
  ASSERT_TRUE(testing::AwaitCondition([&] { return std::filesystem::exists(gate + ".asleep"); }))
      << "release 2 is starting";

  release_->Sign(3);
  json env = testing::EnvObject(release_->Environment());
  env["LAS_SKIP"] = "slow";
  auto newer = testing::RunServe(tmp_.Sub("log-newer"), release_->registry_path(), env,
                                 {{{"op", "listTools"}}});
  ASSERT_EQ(newer.exit_code, 0) << newer.err;
  EXPECT_EQ(testing::ReplayEvents(tmp_.Sub("log-newer"), {"--kind", "WatermarkAdvanced"}).size(), 1u);
  std::filesystem::remove(gate);

  ExpectRefusedThenEnd(older, "echo__echo", {{"message", "old"}});

  auto rejected = Replay({"--kind", "ReleaseRejected"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "rollback");
  EXPECT_EQ(rejected[0]["payload"]["release_sequence"], 2);
  // This log's watermark is appended before the file moves (probe CW2: a crash in between
  // left the file ahead of the log), so it records release 2, which this log admitted,
  // though the file's move then failed.
  auto advanced = Replay({"--kind", "WatermarkAdvanced"});
  ASSERT_EQ(advanced.size(), 1u);
  EXPECT_EQ(advanced[0]["payload"]["to_sequence"], 2);
  EXPECT_LT(advanced[0]["seq"], rejected[0]["seq"]);
  std::set<std::string> admitted, stopped;
  for (const json& e : Replay({"--kind", "SurfaceAdmitted"})) admitted.insert(e["payload"]["surface"]);
  for (const json& e : Replay({"--kind", "SurfaceStopped"})) {
    EXPECT_EQ(e["payload"]["reason"], "release-superseded") << e.dump();
    EXPECT_EQ(e["payload"]["restart_after_ms"], -1);
    stopped.insert(e["payload"]["surface"]);
  }
  EXPECT_TRUE(admitted.count("echo") && admitted.count("slow"));
  EXPECT_EQ(stopped, admitted) << "every surface release 2 admitted is stopped";
  EXPECT_EQ(LeftBehind(), "") << "and its children ended";
}

// Waits until `ready` holds for the events of `filter` in the log a server holds.
bool AwaitEvents(const std::string& log_dir, std::vector<std::string> filter,
                 const std::function<bool(const std::vector<json>&)>& ready) {
  return testing::AwaitCondition([&] { return ready(testing::ReplayEvents(log_dir, filter)); });
}

bool AwaitFile(const std::string& path) {
  return testing::AwaitCondition([&] { return std::filesystem::exists(path); });
}

// A surface whose child died while its release started, and whose restart was under way
// when the release was found superseded, was admitted when that restart ended, and served
// the rolled-back release (probe CG1); a restart that failed then was scheduled again
// (probe CH2). Returns phoenix's last SurfaceStopped, after checking that nothing was
// admitted once the release was rejected and that phoenix is stopped for good.
json SupersedeWhilePhoenixRestarts(const std::string& log_dir, testing::SignedRelease& release,
                                   const std::string& gate, const std::string& dir,
                                   bool restart_fails) {
  const std::string died = dir + "/phoenix-died";
  const std::string restart_gate = dir + "/phoenix-restart-gate";
  const std::string fail = dir + "/phoenix-restart-fails";
  testing::AddVariantOf(release, "flaky", "phoenix",
                        {"--exit-after-list-once", died, "--sleep-at-start-while", restart_gate,
                         "--exit-at-start-while", fail});
  release.Sign(2);
  testing::ChildProcess older(testing::LasArgvWithEnv(
      release.Environment(), {"serve", "--log", log_dir, "--registry", release.registry_path(),
                              "--restart-delay", "2000"}));
  EXPECT_TRUE(AwaitFile(died)) << "phoenix's first child was admitted and dies";
  { std::ofstream(restart_gate) << "held"; }
  EXPECT_TRUE(AwaitFile(restart_gate + ".asleep")) << "its restart is under way";
  EXPECT_TRUE(std::filesystem::exists(gate + ".asleep")) << "release 2 is still starting";

  release.Sign(3);
  json env = testing::EnvObject(release.Environment());
  env["LAS_SKIP"] = "slow,phoenix";
  auto newer = testing::RunServe(dir + "/log-newer", release.registry_path(), env,
                                 {{{"op", "listTools"}}});
  EXPECT_EQ(newer.exit_code, 0) << newer.err;
  std::filesystem::remove(gate);  // release 2 settles: its watermark commit is refused
  EXPECT_TRUE(AwaitEvents(log_dir, {"--kind", "ReleaseRejected"},
                          [](const std::vector<json>& events) { return !events.empty(); }));
  if (restart_fails) std::ofstream(fail) << "exit";
  std::filesystem::remove(restart_gate);  // the restart under way ends
  json last_stop;
  auto phoenix_stopped_for_good = [&](const std::vector<json>& events) {
    for (const json& e : events) {
      if (e["payload"]["surface"] != "phoenix") continue;
      last_stop = e;
      if (e["payload"]["restart_after_ms"] == -1) return true;
    }
    return false;
  };
  EXPECT_TRUE(AwaitEvents(log_dir, {"--kind", "SurfaceStopped"}, phoenix_stopped_for_good))
      << last_stop.dump();
  ExpectRefusedThenEnd(older, "phoenix__echo", {{"text", "old"}});

  uint64_t rejected_at = 0;
  for (const json& e : testing::ReplayEvents(log_dir, {"--kind", "ReleaseRejected"})) {
    rejected_at = e["seq"];
  }
  EXPECT_NE(rejected_at, 0u);
  for (const json& e : testing::ReplayEvents(log_dir, {"--kind", "SurfaceAdmitted"})) {
    EXPECT_LT(e["seq"].get<uint64_t>(), rejected_at)
        << "nothing is admitted after the release was superseded: " << e.dump();
  }
  EXPECT_EQ(LeftBehind(), "") << "and its children ended";
  return last_stop;
}

// Probe HG1: a restart under way when the server began to end (stdin's EOF, with a call in
// flight to settle) was admitted, "started again", against docs/CLI.md. It is ended and
// recorded stopped for good; the call in flight still gets its answer.
TEST_F(FederationTest, ARestartUnderWayWhenTheServerBeginsToEndAdmitsNothing) {
  const std::string died = tmp_.Sub("phoenix-died");
  const std::string restart_gate = tmp_.Sub("phoenix-restart-gate");
  testing::AddVariantOf(*release_, "flaky", "phoenix",
                        {"--exit-after-list-once", died, "--sleep-at-start-while", restart_gate});
  release_->Sign(1);
  const std::string log_dir = tmp_.Sub("log");
  testing::ChildProcess serve(testing::LasArgvWithEnv(
      release_->Environment(),
      {"serve", "--log", log_dir, "--registry", release_->registry_path(), "--restart-delay", "1500"}));
  serve.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  ASSERT_TRUE(serve.ReadLine(std::chrono::seconds(60)).has_value());
  ASSERT_TRUE(AwaitFile(died)) << "phoenix's first child was admitted and dies";
  { std::ofstream(restart_gate) << "held"; }
  ASSERT_TRUE(AwaitFile(restart_gate + ".asleep")) << "its restart is under way";
  serve.WriteLine(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flaky__slow","arguments":{"ms":3000,"text":"settled"}}})");
  ASSERT_TRUE(AwaitEvents(log_dir, {"--kind", "ToolCallRequested"},
                          [](const std::vector<json>& events) { return !events.empty(); }));
  serve.CloseStdin();
  std::filesystem::remove(restart_gate);  // a restart still under way would end now
  auto answer = serve.ReadLine(std::chrono::seconds(60));
  ASSERT_TRUE(answer.has_value());
  EXPECT_NE(answer->find("settled"), std::string::npos) << *answer;
  const std::optional<int> status = serve.WaitFor(std::chrono::seconds(60));
  if (!status) serve.Kill(SIGKILL);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;

  int admitted = 0;
  for (const json& e : testing::ReplayEvents(log_dir, {"--kind", "SurfaceAdmitted"})) {
    admitted += e["payload"]["surface"] == "phoenix";
  }
  EXPECT_EQ(admitted, 1) << "only the first start admitted phoenix";
  json last_stop;
  for (const json& e : testing::ReplayEvents(log_dir, {"--kind", "SurfaceStopped"})) {
    if (e["payload"]["surface"] == "phoenix") last_stop = e;
  }
  EXPECT_EQ(last_stop["payload"]["restart_after_ms"], -1) << last_stop.dump();
  EXPECT_EQ(LeftBehind(), "") << "and its children ended";
}

TEST_F(FederationTest, ARestartUnderWayWhenTheReleaseIsSupersededAdmitsNothing) {
  const std::string gate = AddSlowSurface();
  const json stop = SupersedeWhilePhoenixRestarts(tmp_.Sub("log"), *release_, gate,
                                                  tmp_.path().string(), /*restart_fails=*/false);
  EXPECT_EQ(stop["payload"]["reason"], "release-superseded") << stop.dump();
}

TEST_F(FederationTest, ARestartUnderWayThatFailsAfterTheReleaseIsSupersededIsNotScheduledAgain) {
  const std::string gate = AddSlowSurface();
  const json stop = SupersedeWhilePhoenixRestarts(tmp_.Sub("log"), *release_, gate,
                                                  tmp_.path().string(), /*restart_fails=*/true);
  EXPECT_EQ(stop["payload"]["reason"], "start-failed") << stop.dump();
  EXPECT_NE(stop["payload"]["detail"].get<std::string>().find(
                "not started again: release-superseded"),
            std::string::npos)
      << stop.dump();
}

TEST_F(FederationTest, LasOnlyAndLasSkipOnlySubtract) {
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}}}, {}, {{"LAS_ONLY", "echo,finance"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    const std::string name = tool["name"];
    EXPECT_TRUE(name.rfind("echo__", 0) == 0 || name.rfind("las__", 0) == 0) << name;
  }
  auto skipped = Serve({{{"op", "listTools"}}}, {}, {{"LAS_SKIP", "echo"}});
  for (const auto& tool : skipped.steps[0]["result"]["tools"]) {
    EXPECT_NE(tool["name"].get<std::string>().rfind("echo__", 0), 0u);
  }
}

TEST_F(FederationTest, ABinaryChangedAfterSigningFailsThatSurfaceClosed) {
  release_->Sign(1);
  std::ofstream(release_->workspace() + "/mcp_child.py", std::ios::app) << "\n# changed\n";
  auto run = Serve({{{"op", "listTools"}}, CallStep("echo__echo", {{"message", "ok"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& tool : run.steps[0]["result"]["tools"]) {
    EXPECT_NE(tool["name"].get<std::string>().rfind("flaky__", 0), 0u);
  }
  EXPECT_EQ(StepText(run.steps[1]), "Echo: ok");
  bool digest_mismatch = false;
  for (const auto& event : Replay({"--kind", "SurfaceRejected"})) {
    if (event["payload"]["surface"] == "flaky") {
      digest_mismatch = event["payload"]["reason"] == "digest-mismatch";
    }
  }
  EXPECT_TRUE(digest_mismatch);
}

TEST_F(FederationTest, ACallThatOverridesACredentialTemplateIsRefusedAndNoSecretIsLogged) {
  SignWithEchoCredential("api_key");
  auto run = Serve({CallStep("flaky__echo", {{"text", "m"}, {"api_key", "model-chosen"}}),
                    CallStep("flaky__echo", {{"text", "injected"}}),
                    CallStep("flaky__echo", {{"text", "m"}, {"API_KEY", "model-chosen"}})},
                   {}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32602);
  ASSERT_TRUE(run.steps[1].contains("result")) << run.steps[1].dump();
  EXPECT_EQ(StepText(run.steps[1]), "injected");
  EXPECT_EQ(run.steps[2]["error"]["code"], -32602) << "in any letter case (probe BZ1)";
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 2u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "credential-override");
  EXPECT_EQ(denied[1]["payload"]["reason"], "credential-override");
  auto requested = Replay({"--kind", "ToolCallRequested"});
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0]["payload"]["arguments"], R"({"text":"injected"})")
      << "the log holds the model's arguments, not the injected ones";
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(all.out.find("s3cr3t-value"), std::string::npos) << "no secret in the log";
  EXPECT_EQ(run.err.find("s3cr3t-value"), std::string::npos) << "no secret on stderr";
}

// A signed schema that refuses what Las fills in (an api_key of at most 4 characters, a
// longer secret): the client learned "/api_key" fails maxLength, a fact about the secret,
// and `las check` said ok though no call could pass (probe L3).
TEST_F(FederationTest, ASchemaThatRefusesTheFilledCredentialIsCaughtAndNeverDescribed) {
  release_->AddSurface("short", {"/usr/bin/python3", release_->workspace() + "/mcp_child.py",
                                 "--short-key-tool", "login"});
  for (auto& surface : release_->manifest().surfaces) {
    if (surface.name != "short") continue;
    for (auto& tool : surface.tools) {
      if (tool.name == "login") tool.credential_templates["api_key"] = "short.api-key";
    }
  }
  release_->Sign(1);
  std::vector<std::string> env = release_->Environment();
  env.push_back("LAS_CREDENTIAL_SHORT_API_KEY=sk-longer-than-four");
  auto check = testing::RunCommand(
      {LAS_EXECUTABLE, "check", "short", "--json", "--registry", release_->registry_path()}, env);
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  const json report = json::parse(check.out);
  bool caught = false;
  for (const json& row : report["checks"]) {
    if (row["surface"] == "short" && row["check"] == "tools") {
      caught = row["result"] == "fail" && row["reason"] == "arguments-schema-violation" &&
               row["detail"].get<std::string>().find("login") != std::string::npos;
    }
  }
  EXPECT_TRUE(caught) << check.out;

  auto run = Serve({CallStep("short__login", json::object())}, {},
                   {{"LAS_CREDENTIAL_SHORT_API_KEY", "sk-longer-than-four"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32602) << run.steps[0].dump();
  const std::string said = run.steps[0].dump();
  EXPECT_EQ(said.find("maxLength"), std::string::npos) << said;
  EXPECT_NE(said.find("refuses the value Las fills in for argument"), std::string::npos) << said;
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0].dump().find("maxLength"), std::string::npos) << denied[0].dump();
}

// `las check` says which credential variable a templated tool lacks, before a call is refused.
TEST_F(FederationTest, CheckNamesAMissingOrEmptyCredentialVariable) {
  SignWithEchoCredential("api_key");
  auto check = [&](const std::string& value) {
    std::vector<std::string> env = release_->Environment();
    env.push_back("LAS_CREDENTIAL_FLAKY_API_KEY=" + value);
    auto run = testing::RunCommand({LAS_EXECUTABLE, "check", "--json", "--registry",
                                    release_->registry_path()},
                                   env);
    const json report = json::parse(run.out);
    for (const json& row : report["checks"]) {
      if (row["surface"] == "flaky" && row["check"] == "credentials") return row;
    }
    ADD_FAILURE() << "no credentials row for flaky: " << run.out << run.err;
    return json::object();
  };
  const json empty = check("");
  EXPECT_EQ(empty["result"], "fail") << empty.dump();
  EXPECT_EQ(empty["reason"], "credential-unavailable");
  EXPECT_NE(empty["detail"].get<std::string>().find("LAS_CREDENTIAL_FLAKY_API_KEY (echo)"),
            std::string::npos)
      << empty.dump();
  const json set = check("s3cr3t-value");
  EXPECT_EQ(set["result"], "ok") << set.dump();
  EXPECT_EQ(set.dump().find("s3cr3t-value"), std::string::npos) << "names only, never a value";
  // Probe CR2: a value under 16 bytes can be guessed through a tool that echoes its input.
  EXPECT_NE(set["detail"].get<std::string>().find(
                "under 16 bytes, so a client with a tool that echoes its input can test guesses "
                "at it (docs/RELEASES.md, \"Live tools and calls\"): LAS_CREDENTIAL_FLAKY_API_KEY"),
            std::string::npos)
      << set.dump();
  const json long_enough = check("s3cr3t-value-0123456789");
  EXPECT_EQ(long_enough["detail"], "1 credential variable set") << long_enough.dump();
  // Probe L8: a value JSON cannot carry passed the check, and every call was refused.
  const json not_utf8 = check("s3cr\xff" "3t-value");
  EXPECT_EQ(not_utf8["result"], "fail") << not_utf8.dump();
  EXPECT_EQ(not_utf8["reason"], "credential-unavailable");
  EXPECT_NE(not_utf8["detail"].get<std::string>().find("not valid UTF-8: LAS_CREDENTIAL_FLAKY_API_KEY (echo)"),
            std::string::npos)
      << not_utf8.dump();
}

// {"isError":true,"isError":false}: a reader keeping the last key sees a success, the
// ledger a tool error. Neither may stand: refused.
TEST_F(FederationTest, AResultThatRepeatsATopLevelKeyIsRefused) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__two_verdicts"), CallStep("flaky__echo", {{"text", "next"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603) << run.steps[0].dump();
  EXPECT_EQ(StepText(run.steps[1]), "next");
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[0]["payload"]["error_code"], "result-refused");
  // What was wrong, in Las's words, for the operator (probe HN6: only the code was kept).
  EXPECT_EQ(completed[0]["payload"]["detail"], "the result names a member twice");
  const std::string call_id = completed[0]["payload"]["call_id"];
  auto shown = testing::RunCommand(
      {LAS_EXECUTABLE, "inspect", "calls", "--call", call_id, "--log", tmp_.Sub("log")});
  EXPECT_NE(shown.out.find("detail  the result names a member twice"), std::string::npos)
      << shown.out << shown.err;
}

// Probe CU4: a result no MCP client can read (the SDK threw on each, and the ledger said
// Ok) is refused, recorded Refused `result-malformed`, and the session goes on.
TEST_F(FederationTest, AResultNoClientCanReadIsRefused) {
  release_->Sign(1);
  const json no_text = json::parse(R"({"result":{"content":[{"type":"text"}]}})");
  const json array_structured = json::parse(R"({"result":{"structuredContent":[1,2]}})");
  // Probe FL2: the SDK's atob refuses a lone `=` after two characters.
  const json bad_base64 = json::parse(
      R"({"result":{"content":[{"type":"image","mimeType":"image/png","data":"AA="}]}})");
  const json unknown_member = json::parse(R"({"result":{"content":[],"later":{"type":"x"}}})");
  auto run = Serve({CallStep("flaky__echo", no_text), CallStep("flaky__echo", array_structured),
                    CallStep("flaky__echo", bad_base64), CallStep("flaky__echo", unknown_member),
                    CallStep("flaky__echo", {{"text", "next"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (int i : {0, 1, 2}) {
    EXPECT_EQ(run.steps[i]["error"]["code"], -32603) << run.steps[i].dump();
  }
  EXPECT_EQ(run.steps[3]["ok"], true) << "members Las does not know pass";
  EXPECT_EQ(StepText(run.steps[4]), "next");
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 5u);
  for (int i : {0, 1, 2}) {
    EXPECT_EQ(completed[i]["payload"]["outcome"], "Refused");
    EXPECT_EQ(completed[i]["payload"]["error_code"], "result-malformed");
  }
  EXPECT_EQ(completed[0]["payload"]["detail"],
            "the result's content is not an array of items MCP clients read");
  EXPECT_EQ(completed[1]["payload"]["detail"], "the result's structuredContent is not an object");
  EXPECT_EQ(completed[3]["payload"].value("detail", ""), "") << completed[3].dump();
  EXPECT_EQ(completed[3]["payload"]["outcome"], "Ok");
}

// A child that sends back the credential Las injected: the result is refused, so the
// secret reaches neither the client nor the log.
TEST_F(FederationTest, AResultThatEchoesAnInjectedCredentialIsRefusedAndNotRecorded) {
  SignWithEchoCredential("text");
  auto run = Serve({CallStep("flaky__echo", json::object())}, {},
                   {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t \"value\""}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603) << run.steps[0].dump();
  EXPECT_EQ(run.steps[0].dump().find("s3cr3t"), std::string::npos);
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[0]["payload"]["error_code"], "credential-in-result");
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(all.out.find("s3cr3t"), std::string::npos) << "no secret in the log";
}

// The same for a result large enough to be read off the loop (over 64 KiB).
TEST_F(FederationTest, ALargeResultThatCarriesACredentialIsRefusedAllTheSame) {
  SignWithEchoCredential("key");  // echo answers its "text": the client's
  const std::string pad(80 * 1024, 'p');
  auto run = Serve({CallStep("flaky__echo", {{"text", pad + " s3cr3t-value " + pad}}),
                    CallStep("flaky__echo", {{"text", pad}})},
                   {}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603) << run.steps[0].dump().substr(0, 300);
  EXPECT_NE(StepText(run.steps[1]).find("stored as handle"), std::string::npos)
      << "a large result the client may have: " << run.steps[1].dump().substr(0, 300);
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[0]["payload"]["error_code"], "credential-in-result");
  EXPECT_EQ(completed[1]["payload"]["outcome"], "Ok");
}

// Another surface that hands back a credential Las injects into flaky (one flaky cached in
// a file the other can read, say; here the echo stand-in repeats it): refused the same way,
// whichever surface's the credential is (probe BD1).
TEST_F(FederationTest, AResultThatCarriesAnotherSurfacesCredentialIsRefusedToo) {
  SignWithEchoCredential("text");
  auto run = Serve({CallStep("echo__echo", {{"message", "cached: s3cr3t-value"}}),
                    CallStep("echo__echo", {{"message", "nothing secret"}})},
                   {}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603) << run.steps[0].dump();
  EXPECT_EQ(StepText(run.steps[1]), "Echo: nothing secret");
  auto completed = Replay({"--kind", "ToolCallCompleted", "--surface", "echo"});
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0]["payload"]["error_code"], "credential-in-result");
  auto results = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"), "--kind",
                                      "ToolCallCompleted"});
  EXPECT_EQ(results.out.find("s3cr3t-value"), std::string::npos) << "no secret among the results";
  // flaky not served this time (LAS_SKIP), its credential still set: still withheld (BE1).
  json env = testing::EnvObject(release_->Environment(), {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  env["LAS_SKIP"] = "flaky";
  auto skipped = testing::RunServe(tmp_.Sub("log-skip"), release_->registry_path(), env,
                                   json::array({CallStep("echo__echo", {{"message", "cached: s3cr3t-value"}})}));
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_EQ(skipped.steps[0]["error"]["code"], -32603) << skipped.steps[0].dump();
}

// A child may spell an injected (numeric) secret as a progress number: that notification
// is dropped; another call's progress still reaches the client.
TEST_F(FederationTest, AProgressNotificationThatCarriesAnInjectedCredentialIsDropped) {
  SignWithEchoCredential("text");
  const auto progress_step = [](const std::string& notice) {
    return json{{"op", "callToolWithProgress"}, {"name", "flaky__progress"},
                {"arguments", {{"notices", json::array({notice})}, {"ms", 200}}}};
  };
  auto run = Serve({progress_step(R"({"progressToken":TOKEN,"progress":73918264})"),
                    progress_step(R"({"progressToken":TOKEN,"progress":1,"total":73918264})"),
                    progress_step(R"({"progressToken":TOKEN,"progress":5})")},
                   {}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "73918264"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["result"]["progress"], json::array()) << run.steps[0].dump();
  EXPECT_EQ(run.steps[1]["result"]["progress"], json::array()) << run.steps[1].dump();
  EXPECT_EQ(run.steps[2]["result"]["progress"], json::array({{{"progress", 5}}}))
      << run.steps[2].dump();
}

// A prompt's description is checked for credentials whole, then cut to its bound: cut
// first, a credential across the cut kept its first bytes (probe BR1).
TEST_F(FederationTest, APromptDescriptionIsCheckedForCredentialsBeforeItIsCut) {
  const std::string secret = "s3cr3t-value-across-the-cut";
  testing::AddVariantOf(*release_, "flaky", "prompted",
                        {"--prompt-description",
                         "rev:" + std::string(secret.rbegin(), secret.rend()) + std::string(1018, 'x')});
  for (auto& surface : release_->manifest().surfaces) {
    for (auto& tool : surface.tools) {
      if (tool.name == "echo") tool.credential_templates["text"] = "flaky.api-key";
    }
  }
  release_->Sign(1);
  auto run = Serve({CallStep("las__inspect_source", {{"id", "prompted"}})}, {"--admin"},
                   {{"LAS_CREDENTIAL_FLAKY_API_KEY", secret}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json source = run.steps[0]["result"]["structuredContent"];
  ASSERT_TRUE(source.contains("prompts")) << source.dump();
  std::set<std::string> names;
  for (const json& prompt : source["prompts"]) names.insert(prompt["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"kept"})) << "the prompt that carries it is left out";
  EXPECT_EQ(run.steps[0].dump().find("s3cr3t"), std::string::npos) << run.steps[0].dump();
}

// What a child lists besides its signed tools — titles, the names of tools no release
// signed — is its own text: one that carries a credential Las injects into the surface
// (the child saw it in an earlier call) is neither served nor recorded. Titles are bounded.
// A name across the detail's 128-byte cut is checked whole (probe CR1).
TEST_F(FederationTest, ChildTextThatCarriesAnInjectedCredentialIsNeitherServedNorRecorded) {
  // Reversed on the command line ("rev:"), which the release signs: a manifest holding
  // the value is refused whole (credential-in-manifest), and this is about the child's text.
  testing::AddVariantOf(*release_, "flaky", "titled", {"--title", "rev:eulav-t3rc3s :devas"});
  testing::AddVariantOf(*release_, "flaky", "long", {"--title", std::string(300, 't')});
  testing::AddVariantOf(*release_, "flaky", "extra", {"--extra-tool", "rev:eulav-t3rc3sk"});
  testing::AddVariantOf(*release_, "flaky", "straddle",
                        {"--extra-tool", "rev:eulav-t3rc3s" + std::string(120, 'a')});
  for (auto& surface : release_->manifest().surfaces) {
    for (auto& tool : surface.tools) {
      if (tool.name == "echo") tool.credential_templates["text"] = "flaky.api-key";
    }
  }
  release_->Sign(1);
  auto run = Serve({CallStep("las__describe", {{"name", "titled__echo"}}),
                    CallStep("las__describe", {{"name", "long__echo"}})},
                   {"--lazy"}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json titled = run.steps[0]["result"]["structuredContent"];
  EXPECT_EQ(titled["name"], "titled__echo") << titled.dump();
  EXPECT_FALSE(titled.contains("title") && titled["title"].is_string() &&
               !titled["title"].get<std::string>().empty())
      << titled.dump();
  EXPECT_EQ(run.steps[1]["result"]["structuredContent"]["title"], std::string(256, 't'))
      << "kMaxTitleBytes";
  EXPECT_EQ(run.err.find("s3cr3t"), std::string::npos) << run.err;
  auto rejected = Replay({"--kind", "SurfaceRejected"});
  std::set<std::string> rejected_surfaces;
  for (const json& event : rejected) rejected_surfaces.insert(event["payload"]["surface"]);
  EXPECT_TRUE(rejected_surfaces.count("extra")) << "an unsigned extra tool is tools-mismatch";
  EXPECT_TRUE(rejected_surfaces.count("straddle"));
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(all.out.find("s3cr3t"), std::string::npos) << "no secret in the log";
}

// A release may sign a tool whose description (or schema) carries a credential Las
// injects: a draft run where the variable is not set cannot tell, and the manifest holds
// only the description's digest. Served, it would reach every client and the log: the
// surface is left out (credential-in-definition) when the value is set, its tools named
// nowhere; the other surfaces serve (probe BG2).
TEST_F(FederationTest, ASignedToolThatCarriesAnInjectedCredentialLeavesItsSurfaceOut) {
  testing::AddVariantOf(*release_, "flaky", "leaky",
                        {"--extra-tool", "k", "--extra-tool-description", "rev:eulav-t3rc3s-k yek"});
  for (auto& surface : release_->manifest().surfaces) {
    if (surface.name != "leaky") continue;
    auto schema = trust::InputSchemaDigest(R"({"type":"object"})");
    auto description = trust::DescriptionDigest("key k-s3cr3t-value");
    ASSERT_TRUE(schema.ok() && description.ok());
    surface.tools.push_back(trust::ToolBinding{"k", *schema, *description, {}});
  }
  SignWithEchoCredential("text");
  const json steps = json::array({{{"op", "listTools"}}});
  auto run = testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                               testing::EnvObject(release_->Environment(),
                                                  {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}}),
                               steps);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("flaky__echo")) << "the other surfaces serve";
  for (const std::string& name : names) EXPECT_FALSE(name.starts_with("leaky__")) << name;
  EXPECT_NE(run.err.find("surface leaky left out (credential-in-definition)"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("s3cr3t"), std::string::npos) << run.err;
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(all.out.find("s3cr3t"), std::string::npos) << "no secret in the log";
  EXPECT_NE(all.out.find("credential-in-definition"), std::string::npos);

  // Where the value is not set, the description is only text: the surface serves.
  auto unset = testing::RunServe(tmp_.Sub("log-unset"), release_->registry_path(),
                                 testing::EnvObject(release_->Environment()), steps);
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_TRUE(testing::ListedNames(unset.steps[0]).count("leaky__k"));
}

// A signed tool NAMED with a credential's value is in the manifest itself, which
// ReleaseAccepted records: the release is refused whole (credential-in-manifest) before
// anything of it is recorded but its key, sequence and digest, and `las check` says so
// (probe JY1: the surface was left out, and the log held the name, hex-encoded in the
// recorded manifest).
TEST_F(FederationTest, AManifestThatHoldsAnInjectedCredentialIsRefusedWhole) {
  testing::AddVariantOf(*release_, "flaky", "leaky", {"--extra-tool", "k-s3cr3t-value"});
  for (auto& surface : release_->manifest().surfaces) {
    if (surface.name != "leaky") continue;
    auto schema = trust::InputSchemaDigest(R"({"type":"object"})");
    auto description = trust::DescriptionDigest(std::nullopt);
    ASSERT_TRUE(schema.ok() && description.ok());
    surface.tools.push_back(trust::ToolBinding{"k-s3cr3t-value", *schema, *description, {}});
  }
  SignWithEchoCredential("text");
  const std::string secret = "s3cr3t-value";
  std::vector<std::string> env = release_->Environment();
  env.push_back("LAS_CREDENTIAL_FLAKY_API_KEY=" + secret);
  const json steps = json::array({{{"op", "listTools"}}});
  auto run = testing::RunServe(tmp_.Sub("log"), release_->registry_path(), testing::EnvObject(env), steps);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string& name : testing::ListedNames(run.steps[0])) {
    EXPECT_TRUE(name.starts_with("las__")) << name << ": nothing of the release is served";
  }
  EXPECT_NE(run.err.find("release rejected (credential-in-manifest: the manifest holds the value"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find(secret), std::string::npos) << run.err;
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  std::string hex;
  for (unsigned char c : secret) {
    char pair[3];
    std::snprintf(pair, sizeof pair, "%02x", c);
    hex += pair;
  }
  EXPECT_EQ(all.out.find(secret), std::string::npos) << "no secret in the log";
  EXPECT_EQ(all.out.find(hex), std::string::npos) << "no secret in the log, hex-encoded either";
  EXPECT_EQ(Replay({"--kind", "ReleaseAccepted"}).size(), 0u);
  auto rejected = Replay({"--kind", "ReleaseRejected"});
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0]["payload"]["reason"], "credential-in-manifest") << rejected[0].dump();

  auto check = testing::RunCommand(
      testing::LasArgvWithEnv(env, {"check", "--registry", release_->registry_path()}));
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("credential-in-manifest"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find(secret), std::string::npos) << check.out;
}

// What the manifest check must not take for a credential, and what it must: a credential
// of digits equal to one of the manifest's numbers (`schema_version` 1) refused every
// release (probe KB4); a declared variable NAMED with a token, `--env "$TOKEN"` typed for
// `--env TOKEN`, put the token in the log (probe KB1).
TEST_F(FederationTest, TheManifestCheckReadsItsStringsAndDeclaredNames) {
  SignWithEchoCredential("text");
  std::vector<std::string> digits = release_->Environment();
  digits.push_back("LAS_CREDENTIAL_FLAKY_API_KEY=00000001");
  const json steps = json::array({{{"op", "listTools"}}});
  auto numeric = testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                                   testing::EnvObject(digits), steps);
  ASSERT_EQ(numeric.exit_code, 0) << numeric.err;
  EXPECT_TRUE(testing::ListedNames(numeric.steps[0]).count("flaky__echo")) << numeric.err;

  const std::string token = "ghp_R4nd0mT0kenV4lue1234567890abcdefAB";
  for (auto& surface : release_->manifest().surfaces) {
    if (surface.name == "echo") surface.env.push_back(token);
  }
  release_->Sign(2);
  std::vector<std::string> with_token = release_->Environment();
  with_token.push_back("GITHUB_TOKEN=" + token);
  auto named = testing::RunServe(tmp_.Sub("log-named"), release_->registry_path(),
                                 testing::EnvObject(with_token), steps);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.err.find("release rejected (credential-in-manifest"), std::string::npos)
      << named.err;
  EXPECT_EQ(named.err.find("R4nd0m"), std::string::npos) << named.err;
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log-named")});
  EXPECT_EQ(all.out.find("R4nd0m"), std::string::npos) << "no token in the log";
  EXPECT_EQ(all.out.find("52346e64306d"), std::string::npos) << "no token in the log, hex either";
}

// The secret, escaped, in the first of two equal keys of a nested object: a check that
// decodes the result keeping the last key would not see it. A key repeated anywhere
// refuses the result, and a refused result is not recorded.
TEST_F(FederationTest, ACredentialInARepeatedNestedKeyIsRefusedAndNotRecorded) {
  SignWithEchoCredential("text");
  auto run = Serve({CallStep("flaky__echo", {{"twin", true}}),
                    CallStep("flaky__two_verdicts")},
                   {}, {{"LAS_CREDENTIAL_FLAKY_API_KEY", "s3cr3t-value"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[0]["error"]["code"], -32603) << run.steps[0].dump();
  EXPECT_EQ(run.steps[1]["error"]["code"], -32603) << run.steps[1].dump();
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 2u);
  for (const json& event : completed) {
    EXPECT_EQ(event["payload"]["outcome"], "Refused") << event.dump();
    EXPECT_EQ(event["payload"]["error_code"], "result-refused") << event.dump();
    EXPECT_EQ(event["payload"].value("result", ""), "") << "a refused result is not recorded";
  }
  auto all = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(all.out.find("u0073"), std::string::npos) << "no secret in the log";
  EXPECT_EQ(all.out.find("isError"), std::string::npos) << "no refused result in the log";
}

TEST_F(FederationTest, ArgumentsAreValidatedAgainstTheSignedSchemaBeforeAnythingIsLogged) {
  release_->Sign(1);
  auto run = Serve({CallStep("echo__echo", {{"message", 5}}),
                    CallStep("echo__echo", {{"message", "ok"}, {"extra", "sk-secret-looking"}}),
                    CallStep("echo__echo"), CallStep("echo__echo", {{"message", "fine"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run.steps[i]["error"]["code"], -32602) << i;
  // The client learns where its arguments failed (the error's data), never a value.
  EXPECT_NE(run.steps[0]["error"]["data"]["detail"].get<std::string>().find("\"/message\" fails type"),
            std::string::npos) << run.steps[0].dump();
  // And in the message, which most clients show alone (probe IJ2).
  EXPECT_NE(run.steps[0]["error"]["message"].get<std::string>().find(
                "Arguments do not match the tool's input schema: \"/message\" fails type"),
            std::string::npos)
      << run.steps[0].dump();
  EXPECT_EQ(run.steps[1].dump().find("sk-secret-looking"), std::string::npos) << run.steps[1].dump();
  EXPECT_EQ(StepText(run.steps[3]), "Echo: fine");
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 3u);
  for (const auto& event : denied) {
    EXPECT_EQ(event["payload"]["reason"], "arguments-schema-violation");
  }
  // The auditor sees where each failed — pointers and keywords, never a value.
  EXPECT_NE(denied[0]["payload"]["detail"].get<std::string>().find("\"/message\" fails type"), std::string::npos)
      << denied[0].dump();
  EXPECT_NE(denied[1]["payload"]["detail"].get<std::string>().find("\"/extra\" fails additionalProperties"),
            std::string::npos) << denied[1].dump();
  EXPECT_NE(denied[2]["payload"]["detail"].get<std::string>().find("\"/message\" fails required"), std::string::npos)
      << denied[2].dump();
  auto everything = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(everything.out.find("sk-secret-looking"), std::string::npos) << "no refused value in the log";
  EXPECT_EQ(Replay({"--kind", "ToolCallRequested"}).size(), 1u) << "refused calls never reach a child";
  // The operator's table says why, not only that they were denied.
  auto table = testing::RunCommand({LAS_EXECUTABLE, "inspect", "calls", "--log", tmp_.Sub("log")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("REASON"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("denied  arguments-schema-violation"), std::string::npos) << table.out;
  // Columns as wide as their widest cell: the reason (26 bytes) does not push TOOL along.
  const std::vector<std::string> lines = testing::Lines(table.out);
  ASSERT_GE(lines.size(), 4u) << table.out;
  const size_t tool_column = lines[0].find("TOOL");
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find("echo__echo"), tool_column) << table.out;
  }
}

TEST_F(FederationTest, ACallInterruptedByACrashIsUncertainAndNeverRetried) {
  release_->Sign(1);
  const auto argv = testing::LasArgvWithEnv(
      release_->Environment(),
      {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()});
  {
    testing::ChildProcess server(argv);
    server.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
    ASSERT_TRUE(server.ReadLine().has_value());
    server.WriteLine(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flaky__hang"}})");
    // The call is durable before the child sees it: wait for it in the log, then crash.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!LogHas(tmp_.Sub("log"), fb::EventPayload::ToolCallRequested)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the call never reached the log";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    server.Kill(SIGKILL);
    server.Wait();
  }
  KillLeftBehind();  // the crashed server could not end them

  auto inspect = testing::RunCommand(
      {LAS_EXECUTABLE, "inspect", "calls", "--json", "--log", tmp_.Sub("log")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  json calls = json::parse(inspect.out);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["status"], "uncertain");
  EXPECT_EQ(calls[0]["tool"], "hang");

  // A restart serves again and does not retry the interrupted call.
  auto run = Serve({CallStep("echo__echo", {{"message", "after crash"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(StepText(run.steps[0]), "Echo: after crash");
  auto requested = Replay({"--kind", "ToolCallRequested", "--surface", "flaky"});
  EXPECT_EQ(requested.size(), 1u) << "never retried";
  // The crashed session is recorded ended ("lost") by the restart, not left open forever.
  auto closed = Replay({"--kind", "SessionClosed"});
  ASSERT_EQ(closed.size(), 2u);
  EXPECT_EQ(closed[0]["payload"]["reason"], "lost") << closed[0].dump();
  EXPECT_EQ(closed[1]["payload"]["reason"], "eof") << closed[1].dump();
  EXPECT_NE(closed[0]["session"], closed[1]["session"]);
}

// LeftBehind() sees what a server leaves running: the checks that use it can fail.
TEST_F(FederationTest, LeftBehindSeesAProcessThatOutlivesItsParent) {
  auto run = testing::RunCommand({"/bin/sh", "-c", "sleep 600 </dev/null >/dev/null 2>&1 & exit 0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Awaited: the shell's background child may still be exec'ing sleep (its command line not
  // yet "sleep") when the shell has exited.
  EXPECT_TRUE(testing::AwaitCondition([] { return LeftBehind().find("sleep") != std::string::npos; }))
      << LeftBehind();
  KillLeftBehind();
  EXPECT_EQ(LeftBehind(), "");
}

TEST_F(FederationTest, AtEofEveryChildIsEndedAndReaped) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__sleeper"), CallStep("echo__echo", {{"message", "bye"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(LeftBehind(), "") << "no child or zombie";
  const std::string grandchild = "/proc/" + StepText(run.steps[0]);
  EXPECT_FALSE(std::filesystem::exists(grandchild)) << "the child's own child was ended too";
}

// The child's own child left its process group (setsid) and outlived it: `las serve`
// adopted it (child subreaper) and ends it at exit, so nothing of a surface outlives Las.
TEST_F(FederationTest, AnEscapedGrandchildDoesNotOutliveLas) {
  release_->Sign(1);
  auto run = Serve({CallStep("flaky__escapee", {{"seconds", 1000}}), CallStep("flaky__crash"),
                    CallStep("echo__echo", {{"message", "bye"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string escapee = "/proc/" + StepText(run.steps[0]);
  EXPECT_FALSE(std::filesystem::exists(escapee)) << "left running under init";
}

}  // namespace
}  // namespace las
