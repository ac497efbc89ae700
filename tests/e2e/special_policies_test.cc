// The special surface policies through the real `las serve` / `las list` / `las check`,
// with real stand-in children and a signed release: every refusal is an event with its
// reason code (read back with `las replay`), and no refused result reaches the log.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <set>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "trust/digest.h"

namespace las {
namespace {

using nlohmann::json;

constexpr const char* kAgent = "policy-agent";
constexpr const char* kFinancePolicy = R"({"mode":"proposal-only","max_amount":"500.00"})";

using testing::CallStep;

json Request(int ttl, int uses, int depth, const std::string& purpose = "deploy") {
  return {{"purpose", purpose}, {"resource", "github:repo"}, {"target", "las"},
          {"ttl_seconds", ttl}, {"use_count", uses}, {"delegation_depth", depth}};
}

void Write(const std::string& path, const std::string& text, std::filesystem::perms mode) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  std::filesystem::permissions(path, mode);
}

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return trust::Sha256Hex(trust::Sha256(bytes));
}

class SpecialPoliciesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    stand_in_ = release_->CopyIntoWorkspace(testing::StandInScript(), "stand_in.py");
    std::filesystem::create_directories(tmp_.Sub("config"));
    Write(tmp_.Sub("skarbiec.json"),
          R"({"schema_version":1,"purposes":["deploy"],"resources":["github:repo"],"targets":["las"]})",
          std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    Write(tmp_.Sub("finance-policy.json"), kFinancePolicy,
          std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    Write(tmp_.Sub("finance.key"), "stand-in key material",
          std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    finance_env_ = {
        {"LAS_FINANCE_POLICY", tmp_.Sub("finance-policy.json")},
        {"LAS_FINANCE_POLICY_SHA256", trust::Sha256Hex(*trust::CanonicalSha256(kFinancePolicy))},
        {"LAS_FINANCE_STATE", tmp_.Sub("finance-state")},
        {"LAS_FINANCE_KEY", tmp_.Sub("finance.key")},
        {"LAS_FINANCE_BINARY_SHA256", FileSha256(stand_in_)}};
  }

  void AddStandIn(const std::string& surface, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {"/usr/bin/python3", stand_in_, surface};
    argv.insert(argv.end(), extra.begin(), extra.end());
    release_->AddSurface(surface, argv);
  }

  // Gives the drafted `surface` one more signed tool, `tool` (a copy of its first tool's
  // binding under another name): what a policy must refuse to admit.
  void AddExtraTool(const std::string& surface, const std::string& tool) {
    for (auto& binding : release_->manifest().surfaces) {
      if (binding.name != surface) continue;
      trust::ToolBinding extra = binding.tools[0];
      extra.name = tool;
      binding.tools.push_back(extra);
    }
  }

  // The environment of every run: the release, the agent, the local policy files.
  json Env(const json& overrides = json::object()) const {
    json env = testing::EnvObject(release_->Environment(),
                                  {{"LAS_AGENT_ID", kAgent},
                                   {"SKARBIEC_MCP_AGENT_ID", kAgent},
                                   {"LAS_SKARBIEC_POLICY", tmp_.Sub("skarbiec.json")},
                                   {"XDG_CONFIG_HOME", tmp_.Sub("config")}});
    for (const auto& [name, value] : finance_env_.items()) env[name] = value;
    for (const auto& [name, value] : overrides.items()) {
      if (value.is_null()) {
        env.erase(name);
      } else {
        env[name] = value;
      }
    }
    return env;
  }

  testing::SdkRun Serve(json steps, const json& overrides = json::object()) {
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(), Env(overrides), steps);
  }

  // `las list --json` under Env(overrides) (no SDK needed): the federation's verdicts.
  testing::CommandResult List(const json& overrides = json::object()) {
    std::vector<std::string> env;
    const json vars = Env(overrides);
    for (const auto& [name, value] : vars.items()) {
      env.push_back(name + "=" + value.get<std::string>());
    }
    return testing::RunCommand({LAS_EXECUTABLE, "list", "--json", "--log", tmp_.Sub("log"),
                                "--registry", release_->registry_path()},
                               env);
  }

  std::vector<json> Replay(std::vector<std::string> filter = {}) {
    return testing::ReplayEvents(tmp_.Sub("log"), filter);
  }

  // Serves the signed release, makes `change` to a policy file, kills `surface`'s child and
  // returns the SurfaceStopped events that follow (the crash's, then the restart's verdict);
  // the server is then ended, and must exit 0.
  std::vector<json> StopsAfterAChangeAndACrash(const std::string& surface,
                                               const std::function<void()>& change);

  std::string RejectionOf(const std::string& surface) {
    for (const json& e : Replay({"--kind", "SurfaceRejected"})) {
      if (e["payload"]["surface"] == surface) return e["payload"]["reason"];
    }
    return "";
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
  std::string stand_in_;
  json finance_env_;
};

TEST_F(SpecialPoliciesTest, CallRefusalsAreEventsWithReasonCodesAndAllowedCallsPass) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  for (const char* surface : {"skarbiec", "tama", "warsztat", "finance", "echo"}) AddStandIn(surface);
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto run = Serve({{{"op", "listTools"}},
                    CallStep("skarbiec__capability_request", Request(60, 1, 0)),
                    CallStep("skarbiec__capability_request", Request(61, 1, 0)),
                    CallStep("skarbiec__capability_request", Request(30, 2, 0)),
                    CallStep("skarbiec__capability_request", Request(30, 1, 1)),
                    CallStep("skarbiec__capability_request", Request(30, 1, 0, "exfiltrate")),
                    CallStep("tama__install_hook", {{"name", "x"}, {"script", "y"}}),
                    CallStep("tama__list_hooks"),
                    CallStep("warsztat__apply_proposal", {{"id", "p-1"}}),
                    CallStep("finance__finance_propose",
                             {{"amount", "12.00"}, {"currency", "EUR"}}),
                    CallStep("skarbiec__health")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps.size(), 11u);

  std::set<std::string> names;
  for (const auto& tool : run.steps[0]["result"]["tools"]) names.insert(tool["name"]);
  EXPECT_TRUE(names.count("skarbiec__capability_request"));
  EXPECT_TRUE(names.count("tama__list_hooks"));
  EXPECT_TRUE(names.count("warsztat__create_proposal"));
  EXPECT_TRUE(names.count("finance__finance_propose"));
  EXPECT_FALSE(names.count("tama__install_hook")) << "outside Tama's read-only allowlist";
  EXPECT_FALSE(names.count("warsztat__apply_proposal")) << "outside Warsztat's proposal allowlist";
  EXPECT_NE(run.err.find("tool tama__install_hook left out (policy-tool-not-allowed)"),
            std::string::npos)
      << run.err;

  EXPECT_EQ(run.steps[1]["ok"], true) << run.steps[1];
  EXPECT_EQ(run.steps[1]["result"]["content"][0]["text"],
            R"({"capability_id":"cap-0001","expires_in_seconds":60})");
  for (size_t i = 2; i <= 6; ++i) {
    EXPECT_EQ(run.steps[i]["ok"], false) << i;
    EXPECT_EQ(run.steps[i]["error"]["message"].get<std::string>().find("ttl"), std::string::npos)
        << "generic text only";
  }
  EXPECT_EQ(run.steps[7]["ok"], true);
  EXPECT_EQ(run.steps[8]["ok"], false);
  EXPECT_EQ(run.steps[9]["ok"], true) << run.steps[9];
  EXPECT_EQ(run.steps[10]["ok"], true) << run.steps[10];

  std::map<std::string, std::string> denied;  // tool -> reason (last wins)
  std::vector<std::string> skarbiec_reasons;
  for (const json& e : Replay({"--kind", "ToolCallDenied"})) {
    const std::string tool = e["payload"]["surface"].get<std::string>() + "__" +
                             e["payload"]["tool"].get<std::string>();
    if (tool == "skarbiec__capability_request") skarbiec_reasons.push_back(e["payload"]["reason"]);
    denied[tool] = e["payload"]["reason"];
  }
  EXPECT_EQ(skarbiec_reasons,
            (std::vector<std::string>{"skarbiec-ttl", "skarbiec-use-count",
                                      "skarbiec-delegation-depth", "skarbiec-taxonomy"}));
  EXPECT_EQ(denied["tama__install_hook"], "policy-tool-not-allowed");
  EXPECT_EQ(denied["warsztat__apply_proposal"], "policy-tool-not-allowed");
  // Only the allowed calls were ever requested from a child.
  std::multiset<std::string> requested;
  for (const json& e : Replay({"--kind", "ToolCallRequested"})) {
    requested.insert(e["payload"]["surface"].get<std::string>() + "__" +
                     e["payload"]["tool"].get<std::string>());
  }
  EXPECT_EQ(requested, (std::multiset<std::string>{"finance__finance_propose", "skarbiec__capability_request",
                                                   "skarbiec__health", "tama__list_hooks"}));
  // The catalog as loaded holds only what the allowlist exposes.
  for (const json& e : Replay({"--kind", "CatalogLoaded", "--surface", "tama"})) {
    for (const json& tool : e["payload"]["tools"]) EXPECT_NE(tool["name"], "install_hook");
  }
  // Each signed tool an allowlist keeps out is an event with its reason.
  std::set<std::string> withheld;
  for (const json& e : Replay({"--kind", "ToolWithheld"})) {
    EXPECT_EQ(e["payload"]["reason"], "policy-tool-not-allowed") << e;
    withheld.insert(e["payload"]["surface"].get<std::string>() + "__" +
                    e["payload"]["tool"].get<std::string>());
  }
  EXPECT_TRUE(withheld.count("tama__install_hook"));
  EXPECT_TRUE(withheld.count("warsztat__apply_proposal"));
}

// Skarbiec admitted with no SKARBIEC_MCP_AGENT_ID: every session is refused (fail closed),
// and stderr says why instead of leaving the operator to guess.
TEST_F(SpecialPoliciesTest, SkarbiecWithoutItsAgentIdSaysWhyEverySessionIsRefused) {
  AddStandIn("skarbiec");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto listed = List(json{{"SKARBIEC_MCP_AGENT_ID", nullptr}});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.err.find("SKARBIEC_MCP_AGENT_ID is not set: every session is refused"),
            std::string::npos)
      << listed.err;
  // A value no agent id can have is said too (probe Z4), and `las check` fails on either
  // rather than passing a set-up that refuses every session (probe Z3).
  auto impossible = List(json{{"SKARBIEC_MCP_AGENT_ID", " "}});
  EXPECT_NE(impossible.err.find("SKARBIEC_MCP_AGENT_ID names no possible agent"), std::string::npos)
      << impossible.err;
  for (const json& value : {json(nullptr), json(" ")}) {
    json overrides = json::object();
    overrides["SKARBIEC_MCP_AGENT_ID"] = value;
    std::vector<std::string> env;
    const json vars = Env(overrides);
    for (const auto& [name, set] : vars.items()) env.push_back(name + "=" + set.get<std::string>());
    auto checked = testing::RunCommand(
        {LAS_EXECUTABLE, "check", "--json", "--registry", release_->registry_path()}, env);
    EXPECT_EQ(checked.exit_code, 1) << value << checked.out << checked.err;
    bool failed = false;
    const json report = json::parse(checked.out);
    for (const json& row : report["checks"]) {
      if (row["check"] == "agent-id") failed = row["reason"] == "skarbiec-agent-id";
    }
    EXPECT_TRUE(failed) << value << checked.out;
  }
}

// A real server with Skarbiec admitted refuses a session of any other agent, and records
// the refusal with its reason (probe AM1, AM2).
TEST_F(SpecialPoliciesTest, ASessionOfAnotherAgentThanSkarbiecsIsRefusedAndRecorded) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  AddStandIn("skarbiec");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto intruder = Serve({CallStep("skarbiec__health")}, json{{"LAS_AGENT_ID", "intruder"}});
  EXPECT_NE(intruder.exit_code, 0) << "the client could not connect";
  EXPECT_TRUE(intruder.steps.empty()) << "no step ran";
  // The client is told which rule refused it (probe IH4: "does not match the configured
  // agent" alone sent a user of the demo looking for the wrong setting).
  EXPECT_NE(intruder.connect.dump().find("only the agent SKARBIEC_MCP_AGENT_ID names may open a session"),
            std::string::npos)
      << intruder.connect.dump();
  auto allowed = Serve({CallStep("skarbiec__health")});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  ASSERT_EQ(allowed.steps.size(), 1u);
  EXPECT_EQ(allowed.steps[0]["ok"], true) << allowed.steps[0].dump();

  const auto refused = Replay({"--kind", "SessionRefused"});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0]["agent"], "intruder");
  EXPECT_EQ(refused[0]["session"], "");
  EXPECT_EQ(refused[0]["payload"]["reason"], "skarbiec-agent-id");
  EXPECT_EQ(refused[0]["payload"]["transport"], "stdio");
  std::vector<std::string> opened;
  for (const json& e : Replay({"--kind", "SessionOpened"})) opened.push_back(e["agent"]);
  EXPECT_EQ(opened, std::vector<std::string>{kAgent});
  // `las inspect sessions` shows the refusal too (probe FV3: it was in no view).
  auto inspected = testing::RunCommand(
      {LAS_EXECUTABLE, "inspect", "sessions", "--json", "--log", tmp_.Sub("log")});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  const json view = json::parse(inspected.out);
  ASSERT_EQ(view["refused"].size(), 1u) << inspected.out;
  EXPECT_EQ(view["refused"][0]["agent_id"], "intruder");
  EXPECT_EQ(view["refused"][0]["reason"], "skarbiec-agent-id");
  EXPECT_EQ(view["refused"][0]["sequence"], refused[0]["seq"]);
  ASSERT_EQ(view["sessions"].size(), 1u);
  auto table = testing::RunCommand({LAS_EXECUTABLE, "inspect", "sessions", "--log", tmp_.Sub("log")});
  EXPECT_NE(table.out.find("intruder"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("refused  skarbiec-agent-id"), std::string::npos) << table.out;
}

TEST_F(SpecialPoliciesTest, AResultOutsideItsEnvelopeIsRefusedGenericallyAndNeverLogged) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  AddStandIn("skarbiec", {"--misbehave"});
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto run = Serve({CallStep("skarbiec__capability_available",
                         {{"purpose", "deploy"}, {"resource", "github:repo"}, {"target", "las"}}),
                    CallStep("skarbiec__capability_request", Request(10, 1, 0))});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(run.steps[i]["ok"], false) << run.steps[i];
    EXPECT_EQ(run.steps[i]["error"]["message"].get<std::string>().find("redeemed"),
              std::string::npos);
  }
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[0]["payload"]["error_code"], "skarbiec-result-envelope");
  EXPECT_EQ(completed[1]["payload"]["outcome"], "Refused");
  EXPECT_EQ(completed[1]["payload"]["error_code"], "skarbiec-credential-in-result");
  auto everything = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")});
  EXPECT_EQ(everything.out.find("redeemed-credential-value"), std::string::npos)
      << "a refused result never reaches the log";
}

// A Skarbiec answer inside its envelope reaches the client and the log as Las writes those
// values, not as the child spelled them (spaces, an escaped key: a channel of the child's
// choosing, probe EJ1), and the child's progress notifications are not relayed (EJ2).
TEST_F(SpecialPoliciesTest, AnAcceptedSkarbiecAnswerIsRelayedInLassOwnSpellingWithoutProgress) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  AddStandIn("skarbiec", {"--spaced"});
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  auto run = Serve(json::array(
      {{{"op", "callToolWithProgress"},
        {"name", "skarbiec__capability_available"},
        {"arguments", {{"purpose", "deploy"}, {"resource", "github:repo"}, {"target", "las"}}}}}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps[0]["ok"], true) << run.steps[0];
  EXPECT_EQ(run.steps[0]["result"]["result"]["content"][0]["text"], R"({"available":true})")
      << run.steps[0];
  EXPECT_EQ(run.steps[0]["result"]["progress"], json::array()) << run.steps[0];
  auto completed = Replay({"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok");
  EXPECT_EQ(completed[0]["payload"]["result"],
            R"({"content":[{"text":"{\"available\":true}","type":"text"}]})")
      << completed[0].dump();
}

TEST_F(SpecialPoliciesTest, ASkarbiecManifestThatAddsAToolFailsThatSurfaceClosed) {
  AddStandIn("skarbiec");
  AddStandIn("echo");
  ASSERT_FALSE(HasFailure());
  AddExtraTool("skarbiec", "redeem_capability");
  release_->Sign(1);
  auto listed = List();
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.err.find("surface skarbiec left out (policy-tool-not-allowed)"),
            std::string::npos)
      << listed.err;
  const json out = json::parse(listed.out);
  std::set<std::string> names;
  for (const auto& tool : out["tools"]) names.insert(tool["name"]);
  EXPECT_TRUE(names.count("echo__echo")) << "the other surfaces keep serving";
  EXPECT_FALSE(names.count("skarbiec__health"));
  EXPECT_EQ(RejectionOf("skarbiec"), "policy-tool-not-allowed");
}

TEST_F(SpecialPoliciesTest, FinanceNeedsItsWholeLocalConfiguration) {
  AddStandIn("finance");
  AddStandIn("echo");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  struct Case {
    json overrides;
    std::string reason;  // "" : finance admitted; "absent": left out quietly
  };
  const std::vector<Case> cases = {
      {{{"LAS_FINANCE_KEY", nullptr}}, "finance-config-incomplete"},
      {{{"LAS_FINANCE_BINARY_SHA256", std::string(64, '0')}}, "finance-binary-mismatch"},
      {{{"LAS_FINANCE_POLICY_SHA256", FileSha256(tmp_.Sub("skarbiec.json"))}},
       "finance-policy-fingerprint"},
      {{{"LAS_FINANCE_POLICY", nullptr},
        {"LAS_FINANCE_POLICY_SHA256", nullptr},
        {"LAS_FINANCE_STATE", nullptr},
        {"LAS_FINANCE_KEY", nullptr},
        {"LAS_FINANCE_BINARY_SHA256", nullptr}},
       "absent"},
      {json::object(), ""},
  };
  for (const Case& c : cases) {
    std::filesystem::remove_all(tmp_.Sub("log"));
    auto listed = List(c.overrides);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const json out = json::parse(listed.out);
    std::set<std::string> names;
    for (const auto& tool : out["tools"]) names.insert(tool["name"]);
    EXPECT_TRUE(names.count("echo__echo")) << c.reason;
    EXPECT_EQ(names.count("finance__finance_propose"), c.reason.empty() ? 1u : 0u) << c.reason;
    const std::string rejected = RejectionOf("finance");
    if (c.reason == "absent" || c.reason.empty()) {
      EXPECT_EQ(rejected, "") << "absent or admitted: no SurfaceRejected";
    } else {
      EXPECT_EQ(rejected, c.reason);
    }
    if (c.reason == "finance-config-incomplete") {
      const size_t said = listed.err.find("missing LAS_FINANCE_KEY");
      EXPECT_NE(said, std::string::npos) << listed.err;
      EXPECT_EQ(listed.err.find("missing LAS_FINANCE_KEY", said + 1), std::string::npos)
          << "said once (probe JE): " << listed.err;
    }
    // Probe GN2: the checks after the configuration's said only the reason.
    if (c.reason == "finance-binary-mismatch") {
      EXPECT_NE(listed.err.find("left out (finance-binary-mismatch): finance: the release binds "),
                std::string::npos)
          << listed.err;
      EXPECT_NE(listed.err.find("; LAS_FINANCE_BINARY_SHA256 is " + std::string(64, '0')), std::string::npos)
          << listed.err;
    }
  }

  // A policy that is not proposal-only, with a matching fingerprint.
  const std::string executing = R"({"mode":"execute"})";
  Write(tmp_.Sub("finance-policy.json"), executing,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::filesystem::remove_all(tmp_.Sub("log"));
  auto listed = List({{"LAS_FINANCE_POLICY_SHA256",
                       trust::Sha256Hex(*trust::CanonicalSha256(executing))}});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(RejectionOf("finance"), "finance-not-proposal-only");
}

// The pid of `parent`'s child whose last argument is `surface` (a stand-in runs as
// `python3 /dev/fd/N surface`), or 0.
pid_t ChildServing(pid_t parent, const std::string& surface) {
  const std::string tail = std::string(1, '\0') + surface + std::string(1, '\0');
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string pid, comm, state;
    long ppid = 0;
    stat >> pid >> comm >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.size() >= tail.size() &&
        cmdline.compare(cmdline.size() - tail.size(), tail.size(), tail) == 0) {
      return static_cast<pid_t>(std::stol(name));
    }
  }
  return 0;
}

std::vector<json> SpecialPoliciesTest::StopsAfterAChangeAndACrash(
    const std::string& surface, const std::function<void()>& change) {
  std::vector<std::string> env;
  const json vars = Env();
  for (const auto& [name, value] : vars.items()) env.push_back(name + "=" + value.get<std::string>());
  testing::ChildProcess server(testing::LasArgvWithEnv(
      env, {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path(),
            "--restart-delay", "20"}));
  server.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  std::vector<json> stops;
  const pid_t child = server.ReadLine().has_value() ? ChildServing(server.pid(), surface) : 0;
  if (child == 0) {
    ADD_FAILURE() << "no " << surface << " child running";
  } else {
    change();
    EXPECT_EQ(::kill(child, SIGKILL), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (stops.size() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      stops = Replay({"--kind", "SurfaceStopped"});
    }
  }
  server.CloseStdin();
  EXPECT_EQ(server.Wait(), 0);
  return stops;
}

// A restart passes the special policy's checks again, on the files as they are then: a
// finance policy rewritten to execute payments after the admission keeps finance stopped.
TEST_F(SpecialPoliciesTest, ARestartedFinanceChildPassesItsPolicyChecksAgain) {
  AddStandIn("finance");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  const std::vector<json> stops = StopsAfterAChangeAndACrash("finance", [&] {
    std::filesystem::permissions(tmp_.Sub("finance-policy.json"),
                                 std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    std::ofstream(tmp_.Sub("finance-policy.json"), std::ios::trunc)
        << R"({"mode":"execute","max_amount":"999999.00"})";
  });
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stops[1]["payload"]["reason"], "finance-policy-fingerprint") << stops[1].dump();
  EXPECT_EQ(stops[1]["payload"]["restart_after_ms"], -1);
  EXPECT_EQ(Replay({"--kind", "SurfaceAdmitted"}).size(), 1u) << "never admitted again";
}

// Skarbiec's calls are judged by the taxonomy read at its admission: a file changed before
// its child restarts keeps it stopped, as for the other policy files (probe EJ3).
TEST_F(SpecialPoliciesTest, AChangedSkarbiecTaxonomyKeepsARestartedSkarbiecStopped) {
  AddStandIn("skarbiec");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  const std::vector<json> stops = StopsAfterAChangeAndACrash("skarbiec", [&] {
    Write(tmp_.Sub("skarbiec.json"),
          R"({"schema_version":1,"purposes":["deploy","evil"],"resources":["github:repo"],"targets":["las"]})",
          std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  });
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0]["payload"]["reason"], "child-exited");
  EXPECT_EQ(stops[1]["payload"]["reason"], "policy-changed") << stops[1].dump();
  EXPECT_EQ(stops[1]["payload"]["restart_after_ms"], -1);
}

TEST_F(SpecialPoliciesTest, AFinanceReleaseNamingAnExecutionToolFailsClosed) {
  AddStandIn("finance");
  ASSERT_FALSE(HasFailure());
  AddExtraTool("finance", "finance_execute");
  release_->Sign(1);
  auto listed = List();
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(RejectionOf("finance"), "policy-forbidden-verb");
}

TEST_F(SpecialPoliciesTest, LasCheckReportsThePolicyVerdicts) {
  AddStandIn("tama");
  AddStandIn("finance");
  AddStandIn("skarbiec");
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  std::vector<std::string> env;
  const json vars = Env({{"LAS_FINANCE_STATE", nullptr}});
  for (const auto& [name, value] : vars.items()) {
    env.push_back(name + "=" + value.get<std::string>());
  }
  auto checked = testing::RunCommand(
      {LAS_EXECUTABLE, "check", "--json", "--registry", release_->registry_path()}, env);
  ASSERT_EQ(checked.exit_code, 1) << checked.out << checked.err;
  std::map<std::string, json> rows;
  const json report = json::parse(checked.out);
  for (const json& row : report["checks"]) {
    rows[(row["surface"].is_null() ? std::string("") : row["surface"].get<std::string>()) + "/" +
         row["check"].get<std::string>()] = row;
  }
  ASSERT_EQ(rows["/finance-config"]["reason"], "finance-config-incomplete") << checked.out;
  EXPECT_NE(rows["/finance-config"]["detail"].get<std::string>().find("LAS_FINANCE_STATE"),
            std::string::npos);
  EXPECT_EQ(rows["finance/policy"]["result"], "fail");
  EXPECT_EQ(rows["tama/policy"]["result"], "ok");
  EXPECT_NE(rows["tama/policy"]["detail"].get<std::string>().find("install_hook"),
            std::string::npos);
  EXPECT_EQ(rows["tama/tools"]["result"], "ok");
  EXPECT_EQ(rows["skarbiec/policy"]["result"], "ok");
  EXPECT_EQ(rows["skarbiec/taxonomy"]["result"], "ok");
  EXPECT_EQ(rows["skarbiec/agent-id"]["result"], "ok") << rows["skarbiec/agent-id"];
  EXPECT_EQ(rows["skarbiec/tools"]["result"], "ok") << rows["skarbiec/tools"];
}

}  // namespace
}  // namespace las
