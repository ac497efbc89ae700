// Grants end to end: the real `las serve` with signed children, driven by the official MCP
// SDK client (and raw pipes where the client must name its agent), the operator's
// `las grant` / `las revoke`, delegation through `las__grant_*`, and `las replay`.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

// A one-tool MCP child whose tool description is `description`: a new description is a
// new definition digest.
std::string VersionedChild(const std::string& description) {
  return "import json, sys\n"
         "for raw in sys.stdin:\n"
         "    msg = json.loads(raw)\n"
         "    mid, method = msg.get('id'), msg.get('method')\n"
         "    if mid is None:\n"
         "        continue\n"
         "    if method == 'initialize':\n"
         "        result = {'protocolVersion': '2024-11-05', 'capabilities': {'tools': {}},\n"
         "                  'serverInfo': {'name': 'versioned', 'version': '1'}}\n"
         "    elif method == 'tools/list':\n"
         "        result = {'tools': [{'name': 'hello', 'description': '" + description + "',\n"
         "                             'inputSchema': {'type': 'object'}}]}\n"
         "    elif method == 'tools/call':\n"
         "        result = {'content': [{'type': 'text', 'text': 'hello'}]}\n"
         "    else:\n"
         "        print(json.dumps({'jsonrpc': '2.0', 'id': mid,\n"
         "                          'error': {'code': -32601, 'message': 'no'}}), flush=True)\n"
         "        continue\n"
         "    print(json.dumps({'jsonrpc': '2.0', 'id': mid, 'result': result}), flush=True)\n";
}

using testing::CallStep;
using testing::StepText;

class GrantsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    testing::AddStandIns(*release_, {"echo", "lem"});
    ASSERT_FALSE(HasFailure());
  }

  // One SDK session as `agent` ("" = the default agent, holding the implicit root), with
  // the default agent's implicit root turned off for named agents.
  testing::SdkRun Serve(const std::string& agent, json steps) {
    json env = testing::EnvObject(release_->Environment());
    if (!agent.empty()) {
      env["LAS_AGENT_ID"] = agent;
      env["LAS_DEFAULT_AGENT_GRANT"] = "none";
    }
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(), env, steps);
  }

  testing::CommandResult Las(std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(tmp_.Sub("log"));
    return testing::RunCommand(args);
  }

  std::vector<json> Replay(std::vector<std::string> filter) {
    return testing::ReplayEvents(tmp_.Sub("log"), filter);
  }

  json Digests() {
    auto events = Replay({"--summary"});
    return events.empty() ? json() : events.back()["summary"]["digests"];
  }

  std::string Grant(std::vector<std::string> args) {
    args.insert(args.begin(), "grant");
    auto result = Las(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    auto lines = testing::Lines(result.out);
    return lines.empty() ? "" : lines[0];
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(GrantsE2eTest, AnAgentWithoutAGrantIsDeniedAtOnceAndAGrantLetsItCall) {
  release_->Sign(1);
  auto denied = Serve("worker", {CallStep("echo__echo", {{"message", "hi"}}),
                                 CallStep("lem__search", {{"query", "q"}}),
                                 CallStep("las__grants")});
  ASSERT_EQ(denied.exit_code, 0) << denied.err;
  EXPECT_EQ(denied.steps[0]["error"]["code"], -32602);
  EXPECT_EQ(denied.steps[0]["error"]["message"].get<std::string>().find("grant"),
            std::string::npos)
      << "a generic error: " << denied.steps[0].dump();
  EXPECT_EQ(denied.steps[1]["error"]["code"], -32602);
  ASSERT_TRUE(denied.steps[2]["ok"]) << "Las's own tools are every agent's";
  EXPECT_TRUE(denied.steps[2]["result"]["structuredContent"]["grants"].empty());
  auto records = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(records.size(), 2u);
  for (const auto& event : records) {
    EXPECT_EQ(event["payload"]["reason"], "no-grant");
    EXPECT_EQ(event["agent"], "worker");
  }
  EXPECT_TRUE(Replay({"--kind", "ToolCallRequested"}).empty()) << "denied before the log entry";

  const std::string id = Grant({"worker", "--tool", "echo__echo"});
  auto granted = Serve("worker", {CallStep("echo__echo", {{"message", "hi"}}),
                                  CallStep("lem__search", {{"query", "q"}})});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_EQ(StepText(granted.steps[0]), "Echo: hi");
  EXPECT_EQ(granted.steps[1]["error"]["code"], -32602) << "only what was granted";

  // The default agent needs no grant: a single local user works without ceremony.
  auto local = Serve("", {CallStep("lem__search", {{"query", "provenance"}})});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.steps[0]["ok"], true) << local.steps[0].dump();
}

TEST_F(GrantsE2eTest, AnAgentTheClientNamesStartsWithNothingBesideTheDefaultAgent) {
  release_->Sign(1);
  const auto argv = testing::LasArgvWithEnv(
      release_->Environment(),
      {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()});
  testing::ChildProcess server(argv);
  server.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"stranger"}})");
  ASSERT_TRUE(server.ReadLine().has_value());
  server.WriteLine(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo__echo","arguments":{"message":"x"}}})");
  auto answer = server.ReadLine();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(json::parse(*answer)["error"]["code"], -32602) << *answer;
  server.CloseStdin();
  server.Wait();
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["agent"], "stranger");
  EXPECT_EQ(denied[0]["payload"]["reason"], "no-grant");
}

TEST_F(GrantsE2eTest, DelegationNarrowsAndRevocationCascadesAcrossRestarts) {
  release_->Sign(1);
  ASSERT_EQ(Serve("", {{{"op", "ping"}}}).exit_code, 0);  // records the catalog
  const std::string parent = Grant({"alice", "--tool", "echo__echo", "--tool", "lem__search"});
  auto listed = Las({"grants", "--json", "--agent", "alice"});
  json selectors = json::parse(listed.out)[0]["selectors"];
  json echo_selector;
  for (const auto& s : selectors) {
    if (s["surface"] == "echo") echo_selector = s;
  }
  ASSERT_FALSE(echo_selector.is_null()) << listed.out;

  auto alice = Serve(
      "alice",
      {CallStep("las__grants"),
       CallStep("las__grant_delegate",
            {{"to_agent", "bob"}, {"from_grant", parent}, {"selectors", {echo_selector}}}),
       CallStep("las__grant_delegate",
                {{"to_agent", "bob"}, {"from_grant", parent}, {"all", true}}),
       CallStep("las__grant_delegate",
            {{"to_agent", "bob"}, {"from_grant", "grant-not-mine"}, {"selectors", {echo_selector}}})});
  ASSERT_EQ(alice.exit_code, 0) << alice.err;
  EXPECT_EQ(alice.steps[0]["result"]["structuredContent"]["grants"][0]["grant_id"], parent);
  const std::string child =
      alice.steps[1]["result"]["structuredContent"]["grant_id"].get<std::string>();
  EXPECT_FALSE(child.empty()) << alice.steps[1].dump();
  EXPECT_EQ(alice.steps[2]["result"]["isError"], true) << "never wider than held";
  EXPECT_EQ(StepText(alice.steps[2]), "Refused: wider-than-held");
  EXPECT_EQ(StepText(alice.steps[3]), "Refused: not-held");
  // Each refusal is on record, with its reason.
  auto refused = Replay({"--kind", "ToolCallDenied", "--agent", "alice"});
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0]["payload"]["tool"], "grant_delegate");
  EXPECT_EQ(refused[0]["payload"]["reason"], "wider-than-held");
  EXPECT_EQ(refused[1]["payload"]["reason"], "not-held");

  auto bob = Serve("bob", {CallStep("echo__echo", {{"message", "delegated"}}),
                           CallStep("lem__search", {{"query", "q"}})});
  ASSERT_EQ(bob.exit_code, 0) << bob.err;
  EXPECT_EQ(StepText(bob.steps[0]), "Echo: delegated");
  EXPECT_EQ(bob.steps[1]["error"]["code"], -32602) << "only the delegated selector";

  auto revoked = Las({"revoke", parent});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  auto revoked_ids = testing::Lines(revoked.out);
  EXPECT_EQ(std::set<std::string>(revoked_ids.begin(), revoked_ids.end()),
            (std::set<std::string>{parent, child}));
  EXPECT_TRUE(revoked.err.ends_with("las revoke: revoked " + parent +
                                    " and the 1 grant delegated from it\n"))
      << "a cascade is said (probe HT3): " << revoked.err;
  const json after_revoke = Digests();
  ASSERT_TRUE(after_revoke.contains("grants")) << after_revoke.dump();

  // A restart: the revocation holds, and the grants projection rebuilds to the same digest.
  auto bob_again = Serve("bob", {CallStep("echo__echo", {{"message", "again"}})});
  ASSERT_EQ(bob_again.exit_code, 0) << bob_again.err;
  EXPECT_EQ(bob_again.steps[0]["error"]["code"], -32602);
  const json after_restart = Digests();
  EXPECT_EQ(after_restart["grants"], after_revoke["grants"]);
  EXPECT_EQ(Digests(), after_restart) << "las replay rebuilds every projection identically";
  auto all = json::parse(Las({"grants", "--all", "--json", "--agent", "bob"}).out);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["status"], "revoked");
  EXPECT_EQ(all[0]["reason"], "cascade");
  EXPECT_EQ(all[0]["revoked_by"], parent);
  EXPECT_EQ(all[0]["issuer"], "alice");
  auto denied = Replay({"--kind", "ToolCallDenied", "--agent", "bob"});
  ASSERT_EQ(denied.size(), 2u);
  EXPECT_EQ(denied[1]["payload"]["reason"], "no-grant");
}

// Probe FT4: LAS_AGENT_ID names the default agent, whose implicit root allows every tool
// whatever its grants: said on stderr, once, when that agent holds grants (an operator who
// issued them meant to narrow it); not said for a default agent without any.
TEST_F(GrantsE2eTest, TheDefaultAgentsRootOverItsOwnGrantsIsNoted) {
  release_->Sign(1);
  auto plain = Serve("", {CallStep("echo__echo", {{"message", "hi"}})});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("implicit root grant"), std::string::npos) << plain.err;
  Grant({"alice", "--tool", "echo__echo"});
  json env = testing::EnvObject(release_->Environment());
  env["LAS_AGENT_ID"] = "alice";
  auto rooted = testing::RunServe(tmp_.Sub("log"), release_->registry_path(), env,
                                  {CallStep("lem__search", {{"query", "q"}}),
                                   CallStep("echo__echo", {{"message", "hi"}})});
  ASSERT_EQ(rooted.exit_code, 0) << rooted.err;
  EXPECT_EQ(rooted.steps[0]["ok"], true) << "the root allows what the grant does not: " << rooted.steps[0].dump();
  const std::string note = "agent alice is the default agent (LAS_AGENT_ID, else \"default\") "
                           "and holds the implicit root grant: the grants issued to it do not "
                           "narrow what it may call";
  const size_t at = rooted.err.find(note);
  EXPECT_NE(at, std::string::npos) << rooted.err;
  EXPECT_EQ(rooted.err.find(note, at + 1), std::string::npos) << "once: " << rooted.err;
  // On what authority each session called: `las inspect sessions` says (probe FV3).
  ASSERT_EQ(Serve("worker", {{{"op", "ping"}}}).exit_code, 0);
  auto sessions = json::parse(Las({"inspect", "sessions", "--json"}).out)["sessions"];
  ASSERT_EQ(sessions.size(), 3u) << sessions.dump();
  EXPECT_EQ(sessions[0]["implicit_root"], true) << "the default agent";
  EXPECT_EQ(sessions[1]["agent_id"], "alice");
  EXPECT_EQ(sessions[1]["implicit_root"], true);
  EXPECT_EQ(sessions[2]["agent_id"], "worker");
  EXPECT_EQ(sessions[2]["implicit_root"], false);
}

TEST_F(GrantsE2eTest, AChangedDefinitionIsNotCoveredByTheOldGrant) {
  {
    std::ofstream(tmp_.Sub("versioned.py")) << VersionedChild("Say hello (v1).");
  }
  const std::string script = release_->CopyIntoWorkspace(tmp_.Sub("versioned.py"), "versioned.py");
  release_->AddSurface("versioned", {"/usr/bin/python3", script});
  ASSERT_FALSE(HasFailure());
  release_->Sign(1);
  ASSERT_EQ(Serve("", {{{"op", "ping"}}}).exit_code, 0);
  const std::string id = Grant({"worker", "--tool", "versioned__hello"});
  auto first = Serve("worker", {CallStep("versioned__hello")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(StepText(first.steps[0]), "hello");

  // A new release changes only the tool's description: a new definition digest.
  {
    std::ofstream(tmp_.Sub("versioned.py")) << VersionedChild("Say hello (v2), differently.");
  }
  release_->CopyIntoWorkspace(tmp_.Sub("versioned.py"), "versioned.py");
  release_->AddSurface("versioned", {"/usr/bin/python3", script});
  ASSERT_FALSE(HasFailure());
  release_->Sign(2);
  auto second = Serve("worker", {CallStep("versioned__hello")});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.steps[0]["error"]["code"], -32602) << second.steps[0].dump();
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "no-grant");
  auto grants = json::parse(Las({"grants", "--json", "--agent", "worker"}).out);
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]["grant_id"], id) << "the old grant stays, for the old definition only";
  EXPECT_EQ(grants[0]["definitions_changed"], grants[0]["selectors"])
      << "and says it no longer covers the tool as served (probe FT2)";
  EXPECT_NE(Las({"grants", "--agent", "worker"}).out.find("(changed since)"), std::string::npos);
  // The log says why a granted tool was refused (probe FT2: no detail at all).
  const std::string detail = denied[0]["payload"]["detail"];
  const std::string old_digest = grants[0]["selectors"][0]["definition_sha256"];
  EXPECT_NE(detail.find(id + " names this tool at definition " + old_digest + ", not the one served ("),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("grant it again"), std::string::npos) << detail;
  // The ledger shows it too (probe FT8: only `las replay` did), and no request event number.
  const std::string call_id = denied[0]["payload"]["call_id"];
  auto inspected = Las({"inspect", "calls", "--call", call_id});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  EXPECT_NE(inspected.out.find("detail  " + id + " names this tool at definition"), std::string::npos)
      << inspected.out;
  EXPECT_NE(inspected.out.find(" -  "), std::string::npos) << "REQ# of a denied call: " << inspected.out;
  auto as_json = json::parse(Las({"inspect", "calls", "--call", call_id, "--json"}).out);
  EXPECT_EQ(as_json[0]["detail"], detail);
}

// Probe FW2: a grant whose surface a newer release dropped covers nothing served, and said
// nothing of it — not in `las grants`, not in las__grants, not when delegated. Each names
// such selectors now; `las rules` gives a rule's standing.
TEST_F(GrantsE2eTest, ASelectorForASurfaceTheReleaseDroppedIsMarkedNotInTheCatalog) {
  release_->Sign(1);
  ASSERT_EQ(Serve("", {{{"op", "ping"}}}).exit_code, 0);  // records the catalog
  const std::string id = Grant({"worker", "--tool", "echo__echo", "--tool", "lem__search"});
  ASSERT_EQ(Las({"rules", "add", "worker", "lem__search"}).exit_code, 0);
  auto rules = json::parse(Las({"rules", "--json"}).out);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["standing"], "as-granted");
  auto before = json::parse(Las({"grants", "--json", "--agent", "worker"}).out);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0]["not_in_catalog"], json::array());
  json lem_selector;
  for (const auto& s : before[0]["selectors"]) {
    if (s["surface"] == "lem") lem_selector = s;
  }
  ASSERT_FALSE(lem_selector.is_null()) << before.dump();

  auto& surfaces = release_->manifest().surfaces;
  std::erase_if(surfaces, [](const trust::SurfaceBinding& b) { return b.name == "lem"; });
  release_->Sign(2);
  auto worker = Serve("worker", {CallStep("echo__echo", {{"message", "still"}}),
                                 CallStep("las__grants"),
                                 CallStep("las__grant_delegate",
                                          {{"to_agent", "helper"}, {"from_grant", id},
                                           {"selectors", {lem_selector}}})});
  ASSERT_EQ(worker.exit_code, 0) << worker.err;
  EXPECT_EQ(StepText(worker.steps[0]), "Echo: still");
  const json held = worker.steps[1]["result"]["structuredContent"]["grants"];
  ASSERT_EQ(held.size(), 1u) << worker.steps[1].dump();
  EXPECT_EQ(held[0]["not_in_catalog"], json::array({lem_selector}));
  EXPECT_EQ(held[0]["definitions_changed"], json::array());
  EXPECT_EQ(worker.steps[1]["result"]["structuredContent"]["rules"][0]["standing"], "not-in-catalog");
  const json delegated = worker.steps[2]["result"]["structuredContent"];
  EXPECT_FALSE(delegated.value("grant_id", "").empty()) << worker.steps[2].dump();
  EXPECT_EQ(delegated["not_in_catalog"], json::array({lem_selector}))
      << "delegated as asked, and said to give nothing callable";

  auto after = json::parse(Las({"grants", "--json", "--agent", "worker"}).out);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0]["not_in_catalog"], json::array({lem_selector}));
  EXPECT_EQ(after[0]["definitions_changed"], json::array());
  const std::string listing = Las({"grants", "--agent", "worker"}).out;
  EXPECT_NE(listing.find("lem__search@" + lem_selector["definition_sha256"].get<std::string>().substr(0, 12) +
                         " (not in the catalog)"),
            std::string::npos)
      << listing;
  EXPECT_EQ(listing.find("echo__echo@" + before[0]["selectors"][0]["definition_sha256"].get<std::string>().substr(0, 12) +
                         " ("),
            std::string::npos)
      << "the selector still served is not marked: " << listing;
  EXPECT_EQ(json::parse(Las({"rules", "--json"}).out)[0]["standing"], "not-in-catalog");
  EXPECT_NE(Las({"rules"}).out.find(" (not in the catalog)"), std::string::npos);

  // A surface one listing left out by LAS_SKIP is not marked: a skip says nothing of what
  // the release serves (probe GA5).
  std::vector<std::string> skipping = release_->Environment();
  skipping.push_back("LAS_SKIP=echo");
  auto skipped = testing::RunCommand({LAS_EXECUTABLE, "list", "--log", tmp_.Sub("log"), "--registry",
                                      release_->registry_path()},
                                     skipping);
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  auto after_skip = json::parse(Las({"grants", "--json", "--agent", "worker"}).out);
  EXPECT_EQ(after_skip[0]["not_in_catalog"], json::array({lem_selector})) << "echo is not marked";
}

// A release that makes a tool take an argument from a secret is a new definition: a grant
// made before does not cover it (probe DS1: templates were outside the digest, so the old
// grant let its agent call the tool with the secret filled in). `las grant` from the log
// names the definition the server serves, templates included.
TEST_F(GrantsE2eTest, AToolThatNowTakesASecretIsNotCoveredByTheOldGrant) {
  release_->Sign(1);
  ASSERT_EQ(Serve("", {{{"op", "ping"}}}).exit_code, 0);
  Grant({"worker", "--tool", "echo__echo"});
  auto before = Serve("worker", {CallStep("echo__echo", {{"message", "hi"}})});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(StepText(before.steps[0]), "Echo: hi");

  for (auto& surface : release_->manifest().surfaces) {
    if (surface.name != "echo") continue;
    for (auto& tool : surface.tools) {
      if (tool.name == "echo") tool.credential_templates["message"] = "echo.api-key";
    }
  }
  release_->Sign(2);
  const auto serve = [&](const std::string& agent) {
    json env = testing::EnvObject(release_->Environment());
    if (!agent.empty()) env["LAS_AGENT_ID"] = agent;  // "": the default agent
    env["LAS_DEFAULT_AGENT_GRANT"] = "none";
    env["LAS_CREDENTIAL_ECHO_API_KEY"] = "s3cr3t-value";
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(), env,
                             json::array({CallStep("echo__echo", json::object())}));
  };
  auto after = serve("worker");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.steps[0]["error"]["code"], -32602) << after.steps[0].dump();
  auto denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "no-grant");
  EXPECT_TRUE(Replay({"--kind", "ToolCallRequested", "--agent", "worker"}).size() == 1u)
      << "only the call made before the release";

  // The digest `las grant` reads from the log is the one served: this grant covers it.
  Grant({"reviewer", "--tool", "echo__echo"});
  auto granted = serve("reviewer");
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_EQ(Replay({"--kind", "ToolCallDenied"}).size(), 1u) << granted.steps[0].dump();
  EXPECT_EQ(Replay({"--kind", "ToolCallRequested", "--agent", "reviewer"}).size(), 1u);
}

}  // namespace
}  // namespace las
