// Sources, discovery and lazy listing through the real `las serve`, driven by the official
// MCP SDK client: a federation with a failed surface, tool-only children, a source disabled
// by the CLI across restarts, `--lazy`, and las__call under the same guards.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tools/daemon_client.h"

namespace las {
namespace {

using nlohmann::json;

using testing::CallStep;
using testing::ListedNames;
using testing::StepText;

// 100 euro signs: 100 characters, 300 bytes of UTF-8.
std::string MultiByteReason() {
  std::string reason;
  for (int i = 0; i < 100; ++i) reason += "\xE2\x82\xAC";
  return reason;
}

class SourcesE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    testing::AddStandIns(*release_, {"echo"});
    testing::AddTestChild(*release_, "flaky");
    ASSERT_FALSE(HasFailure());
    testing::AddVariantOf(*release_, "flaky", "dead", {"--exit-at-start", "3"});
    release_->Sign(1);
  }

  testing::SdkRun Serve(json steps, std::vector<std::string> extra_args = {}) {
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                             testing::EnvObject(release_->Environment()), steps, extra_args);
  }

  // `with_release`: in the release's environment (LAS_RELEASE_*), as `las list` needs it.
  testing::CommandResult Las(std::vector<std::string> args, bool with_release = false) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(tmp_.Sub("log"));
    args.push_back("--registry");
    args.push_back(release_->registry_path());
    return with_release ? testing::RunCommand(args, release_->Environment())
                        : testing::RunCommand(args);
  }

  std::vector<json> Replay(std::vector<std::string> filter) {
    return testing::ReplayEvents(tmp_.Sub("log"), filter);
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(SourcesE2eTest, AFailedSurfaceIsASourceWithZeroCapabilitiesAndToolOnlyChildrenServe) {
  auto run = Serve({CallStep("las__list_sources", {{"limit", 200}}),
                    CallStep("las__inspect_source", {{"id", "echo"}}),
                    CallStep("las__inspect_source", {{"id", "dead"}}),
                    CallStep("echo__echo", {{"message", "tool-only works"}}),
                    CallStep("las__inspect_source", {{"id", "echo"}, {"offset", 1}})},
                   {"--admin"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json list = run.steps[0]["result"]["structuredContent"];
  std::map<std::string, json> by_id;
  for (const auto& s : list["sources"]) by_id[s["id"]] = s;
  for (const char* id : {"dead", "echo", "flaky", "las", "las.admin", "las.docs", "las.std"}) {
    EXPECT_TRUE(by_id.count(id)) << id << " in " << list.dump();
  }
  EXPECT_EQ(by_id["dead"]["description"], "No catalog loaded for dead: start-failed");
  EXPECT_EQ(by_id["dead"]["counts"],
            json({{"tools", 0}, {"prompts", 0}, {"resources", 0}, {"reducers", 0}}));
  // echo declares only tools: a source with no prompts or resources.
  EXPECT_EQ(by_id["echo"]["counts"]["tools"], 3);
  EXPECT_EQ(by_id["echo"]["counts"]["prompts"], 0);
  EXPECT_EQ(by_id["echo"]["counts"]["resources"], 0);
  EXPECT_GT(by_id["flaky"]["counts"]["tools"].get<int>(), 0);
  EXPECT_EQ(by_id["las.admin"]["visibility"]["mcp_client"], true);
  EXPECT_EQ(list.dump().find("inputSchema"), std::string::npos);

  const json echo = run.steps[1]["result"]["structuredContent"];
  ASSERT_EQ(echo["tools"].size(), 3u);
  EXPECT_EQ(echo["tools"][0]["name"], "echo__content_stats");
  EXPECT_TRUE(echo["tools"][0]["inputSchema"].is_object());
  EXPECT_TRUE(run.steps[2]["result"]["structuredContent"]["tools"].empty());
  EXPECT_EQ(StepText(run.steps[3]), "Echo: tool-only works");
  // A small source is one page; from an offset, the entries after it.
  EXPECT_EQ(echo["next_offset"], nullptr);
  EXPECT_EQ(echo["truncated"], false);
  const json rest = run.steps[4]["result"]["structuredContent"];
  ASSERT_EQ(rest["tools"].size(), 2u) << rest.dump();
  EXPECT_EQ(rest["tools"][0]["name"], echo["tools"][1]["name"]);
  EXPECT_EQ(rest["offset"], 1);
}

// A child that declares resources and prompts but answers their lists "Method not found" is
// a tool-only source and serves; one whose tools/list fails is left out (probe AL1).
TEST_F(SourcesE2eTest, MethodNotFoundForResourcesAndPromptsIsToolOnlyAndAFailedToolsListIsNot) {
  testing::AddVariantOf(*release_, "flaky", "toolonly", {"--declare-resources-prompts", "1"});
  testing::AddVariantOf(*release_, "flaky", "nolist", {"--fail-tools-list", "1"});
  ASSERT_FALSE(HasFailure());
  release_->Sign(2);
  auto run = Serve({CallStep("las__list_sources", {{"limit", 200}}),
                    CallStep("toolonly__received")},
                   {"--admin"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::map<std::string, json> by_id;
  for (const auto& s : run.steps[0]["result"]["structuredContent"]["sources"]) by_id[s["id"]] = s;
  ASSERT_TRUE(by_id.count("toolonly")) << run.steps[0].dump();
  EXPECT_GT(by_id["toolonly"]["counts"]["tools"].get<int>(), 0);
  EXPECT_EQ(by_id["toolonly"]["counts"]["prompts"], 0);
  EXPECT_EQ(by_id["toolonly"]["counts"]["resources"], 0);
  EXPECT_EQ(by_id["nolist"]["description"], "No catalog loaded for nolist: list-failed");
  EXPECT_EQ(by_id["nolist"]["counts"]["tools"], 0);
  // The child was asked for both lists (else this would show nothing).
  const std::string received = StepText(run.steps[1]);
  EXPECT_NE(received.find("resources/list"), std::string::npos) << received;
  EXPECT_NE(received.find("prompts/list"), std::string::npos) << received;
  bool rejected = false;
  for (const json& e : Replay({"--kind", "SurfaceRejected"})) {
    if (e["payload"]["surface"] == "nolist") rejected = e["payload"]["reason"] == "list-failed";
  }
  EXPECT_TRUE(rejected);
}

TEST_F(SourcesE2eTest, ADisabledSourceStaysDisabledAcrossRestartUntilEnabled) {
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  auto disabled = Las({"sources", "disable", "echo", "--reason", "maintenance"});
  ASSERT_EQ(disabled.exit_code, 0) << disabled.err;

  auto run = Serve({{{"op", "listTools"}},
                    CallStep("echo__echo", {{"message", "hi"}}),
                    CallStep("las__call",
                             {{"name", "echo__echo"}, {"arguments", {{"message", "hi"}}}}),
                    CallStep("flaky__echo", {{"text", "others serve"}}),
                    CallStep("las__list_tools", {{"source", "echo"}}),
                    CallStep("las__describe", {{"name", "echo__echo"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.steps[4]["result"]["isError"], true);
  EXPECT_EQ(run.steps[4]["result"]["structuredContent"]["error"], "source-disabled");
  // Describing one of its tools says the same, naming the source (probe IN3).
  EXPECT_EQ(run.steps[5]["result"]["structuredContent"],
            json({{"error", "source-disabled"}, {"source", "echo"}}))
      << run.steps[5].dump();
  const auto names = ListedNames(run.steps[0]);
  for (const auto& name : names) EXPECT_NE(name.rfind("echo__", 0), 0u) << name;
  EXPECT_TRUE(names.count("flaky__echo"));
  EXPECT_EQ(run.steps[1]["ok"], false);
  EXPECT_EQ(run.steps[2]["ok"], false) << "las__call passes the same guard";
  EXPECT_EQ(StepText(run.steps[3]), "others serve");
  int source_disabled = 0;
  for (const auto& event : Replay({"--kind", "ToolCallDenied"})) {
    if (event["payload"]["reason"] == "source-disabled") {
      EXPECT_EQ(event["payload"]["surface"], "echo");
      ++source_disabled;
    }
  }
  EXPECT_EQ(source_disabled, 2);

  // `las list` shows what tools/list shows, and says why the rest is missing (probe CE1).
  auto listed = Las({"list"}, /*with_release=*/true);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find("echo__"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("flaky__echo\n"), std::string::npos) << listed.out;
  EXPECT_NE(listed.err.find("source echo is disabled: its tools are not listed (las sources "
                            "enable echo)"),
            std::string::npos)
      << listed.err;
  auto listed_json = Las({"list", "--json"}, /*with_release=*/true);
  ASSERT_EQ(listed_json.exit_code, 0) << listed_json.err;
  std::map<std::string, bool> surface_enabled, tool_enabled;
  const json catalog = json::parse(listed_json.out);
  for (const auto& s : catalog["surfaces"]) surface_enabled[s["name"]] = s["enabled"];
  for (const auto& t : catalog["tools"]) tool_enabled[t["name"]] = t["enabled"];
  EXPECT_EQ(surface_enabled.at("echo"), false);
  EXPECT_EQ(surface_enabled.at("flaky"), true);
  EXPECT_EQ(tool_enabled.at("echo__echo"), false) << "--json keeps a disabled source's tools";
  EXPECT_EQ(tool_enabled.at("flaky__echo"), true);

  // Enabled through the server's las.admin tool: at once, and recorded.
  auto enabled = Serve({CallStep("las__enable_source", {{"id", "echo"}}),
                        CallStep("echo__echo", {{"message", "back"}}), {{"op", "listTools"}},
                        CallStep("las__disable_source", {{"id", "las"}}),
                        CallStep("las__disable_source", {{"id", "echo"}, {"reason", "a\x1b[31mb"}}),
                        CallStep("las__disable_source", {{"id", "echo"}, {"reason", std::string(257, 'r')}}),
                        CallStep("las__disable_source", {{"id", "echo"}, {"reason", MultiByteReason()}})},
                       {"--admin"});
  ASSERT_EQ(enabled.exit_code, 0) << enabled.err;
  EXPECT_EQ(enabled.steps[0]["result"]["structuredContent"]["enabled"], true);
  EXPECT_EQ(StepText(enabled.steps[1]), "Echo: back");
  EXPECT_TRUE(ListedNames(enabled.steps[2]).count("echo__echo"));
  EXPECT_EQ(enabled.steps[3]["result"]["isError"], true) << "las cannot be disabled";
  EXPECT_EQ(enabled.steps[3]["result"]["structuredContent"]["error"], "source-protected");
  EXPECT_EQ(enabled.steps[4]["result"]["structuredContent"]["error"], "invalid-reason")
      << "a reason with control characters is the reason's fault, not the source's";
  for (int step : {5, 6}) {  // over 256 bytes, in characters or not: one refusal, one shape
    EXPECT_EQ(enabled.steps[step]["result"]["structuredContent"]["error"], "invalid-reason")
        << enabled.steps[step].dump();
  }
  auto toggles = Replay({"--kind", "SourceEnabled"});
  ASSERT_EQ(toggles.size(), 1u);
  EXPECT_EQ(toggles[0]["payload"]["source_id"], "echo");
}

// A call sent with a disable of its source is refused, and no request of it is recorded
// after the SourceDisabled (probe FC1: it went through, logged after the disable).
TEST_F(SourcesE2eTest, ACallSentWithADisableOfItsSourceIsRefused) {
  auto run = Serve({{{"op", "concurrentCalls"},
                     {"calls", json::array({{{"name", "las__disable_source"}, {"arguments", {{"id", "echo"}}}},
                                            {{"name", "echo__echo"}, {"arguments", {{"message", "late"}}}}})}}},
                   {"--admin"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps.size(), 1u);
  const json& settled = run.steps[0]["result"];
  ASSERT_EQ(settled.size(), 2u) << settled.dump();
  EXPECT_EQ(settled[0]["result"]["structuredContent"]["changed"], true) << settled.dump();
  EXPECT_EQ(settled[1]["ok"], false) << "the call after the disable ran: " << settled.dump();
  EXPECT_TRUE(Replay({"--kind", "ToolCallRequested", "--surface", "echo"}).empty());
  const auto denied = Replay({"--kind", "ToolCallDenied", "--surface", "echo"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "source-disabled");
}

// Probe CQ3: a source already in the asked state records nothing, on every path.
TEST_F(SourcesE2eTest, ASourceAlreadyInTheAskedStateRecordsNothing) {
  auto run = Serve({CallStep("las__enable_source", {{"id", "echo"}}),
                    CallStep("las__enable_source", {{"id", "las"}}),
                    CallStep("las__disable_source", {{"id", "echo"}, {"reason", "first"}}),
                    CallStep("las__disable_source", {{"id", "echo"}, {"reason", "second"}})},
                   {"--admin"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (int step : {0, 1, 3}) {
    const json answer = run.steps[step]["result"]["structuredContent"];
    EXPECT_EQ(answer["changed"], false) << answer.dump();
    EXPECT_FALSE(answer.contains("sequence")) << answer.dump();
  }
  EXPECT_EQ(run.steps[2]["result"]["structuredContent"]["changed"], true);

  auto again = Las({"sources", "disable", "echo", "--reason", "third"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "echo is already disabled; nothing recorded\n");
  auto enabled = Las({"sources", "enable", "echo"});
  ASSERT_EQ(enabled.exit_code, 0) << enabled.err;
  auto enabled_again = Las({"sources", "enable", "echo"});
  ASSERT_EQ(enabled_again.exit_code, 0) << enabled_again.err;
  EXPECT_EQ(enabled_again.out, "echo is already enabled; nothing recorded\n");

  EXPECT_EQ(Replay({"--kind", "SourceEnabled"}).size(), 1u);
  const auto disabled = Replay({"--kind", "SourceDisabled"});
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0]["payload"]["reason"], "first");
}

// Probe CV4: toggles of one source sent in one write were each planned against an
// inventory that did not show the ones still being appended: three disables were recorded.
TEST_F(SourcesE2eTest, PipelinedTogglesOfOneSourcePlanAgainstThoseInFlight) {
  testing::ChildProcess las(testing::LasArgvWithEnv(
      release_->Environment(), {"serve", "--admin", "--log", tmp_.Sub("log"), "--registry",
                                release_->registry_path()}));
  las.WriteLine(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  ASSERT_TRUE(las.ReadLine(std::chrono::seconds(60)).has_value());
  std::string batch;
  int id = 1;
  for (const char* reason : {"one", "two", "three"}) {
    batch += tools::ToolCallRequestLine(id++, "las__disable_source",
                                        json{{"id", "echo"}, {"reason", reason}}.dump()) + "\n";
  }
  batch += tools::ToolCallRequestLine(id++, "las__enable_source", R"({"id":"echo"})") + "\n";
  batch += tools::ToolCallRequestLine(id++, "las__enable_source", R"({"id":"echo"})");
  las.WriteLine(batch);
  std::map<int, bool> changed;
  for (int i = 0; i < 5; ++i) {
    auto line = las.ReadLine();
    ASSERT_TRUE(line.has_value());
    const json answer = json::parse(*line);
    changed[answer["id"].get<int>()] = answer["result"]["structuredContent"]["changed"];
  }
  EXPECT_EQ(changed, (std::map<int, bool>{{1, true}, {2, false}, {3, false}, {4, true}, {5, false}}));
  las.CloseStdin();
  EXPECT_EQ(las.Wait(), 0);
  const auto disabled = Replay({"--kind", "SourceDisabled"});
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0]["payload"]["reason"], "one");
  EXPECT_EQ(Replay({"--kind", "SourceEnabled"}).size(), 1u);
}

// Probe CQ2: las__inspect_events pages by bytes as well as by count, and its pages, followed
// by next_from, give every event once, in order.
TEST_F(SourcesE2eTest, InspectEventsPagesStayWithin64KiBAndCoverTheLog) {
  json steps = json::array();
  for (int i = 0; i < 8; ++i) {  // eight events of about 12 KiB
    steps.push_back(CallStep("las__state_set",
                             {{"key", "k" + std::to_string(i)}, {"value", std::string(12000, 'v')}}));
  }
  steps.push_back(CallStep("las__state_set", {{"key", "big"}, {"value", std::string(100000, 'b')}}));
  auto filled = Serve(steps);
  ASSERT_EQ(filled.exit_code, 0) << filled.err;
  const size_t logged = Replay({}).size();

  std::vector<uint64_t> seen;
  bool any_truncated = false;
  json from = 1;
  for (int page = 0; page < 100 && !from.is_null(); ++page) {
    auto run = Serve({CallStep("las__inspect_events", {{"from", from}, {"limit", 200}})},
                     {"--admin"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json answer = run.steps[0]["result"]["structuredContent"];
    ASSERT_TRUE(answer["events"].is_array()) << run.steps[0].dump();
    const size_t bytes = run.steps[0]["result"].dump().size();
    if (answer["events"].size() > 1) {
      EXPECT_LE(bytes, 64u * 1024) << "page at " << from;
    }
    any_truncated = any_truncated || answer["truncated"] == true;
    for (const auto& event : answer["events"]) {
      if (seen.size() < logged) seen.push_back(event["seq"].get<uint64_t>());
    }
    // Each run of `las serve` appends its own session's events: stop at the log as filled.
    from = seen.size() < logged ? answer["next_from"] : json(nullptr);
  }
  ASSERT_EQ(seen.size(), logged);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
  EXPECT_TRUE(any_truncated) << "about 200 KiB of events cannot fit one page";
}

// Probe DA1: las__inspect_events shows a root holder every event, but not what belongs to
// other agents: their private state, messages between others, their handles' contents,
// their call arguments and results. The operator's `las replay` shows everything.
TEST_F(SourcesE2eTest, InspectEventsWithholdsOtherAgentsPrivateData) {
  auto as = [&](const std::string& agent, json steps, std::vector<std::string> args = {}) {
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                             testing::EnvObject(release_->Environment(), {{"LAS_AGENT_ID", agent}}),
                             steps, args);
  };
  auto bob = as("bob", {CallStep("las__state_set", {{"key", "api-token"}, {"value", "bob-SECRET-123"}}),
                        CallStep("las__message_send",
                                 {{"to", "carol"}, {"subject", "pin"}, {"body", "PIN 4711"}}),
                        CallStep("echo__echo", {{"message", "merger with ACME"}}),
                        CallStep("las__state_set", {{"key", "big"}, {"value", "PIN=4711" + std::string(20000, 'p')}}),
                        CallStep("las__state_get", {{"key", "big"}}),  // a handle (DD5)
                        CallStep("las__state_list", {{"my-password-is-hunter2", 1}})});  // DD8
  ASSERT_EQ(bob.exit_code, 0) << bob.err;
  ASSERT_EQ(as("default", {CallStep("las__state_set", {{"key", "mine"}, {"value", "visible"}})})
                .exit_code, 0);
  const size_t logged = Replay({}).size();
  json events = json::array();
  json from = 1;
  for (int page = 0; page < 100 && events.size() < logged; ++page) {
    auto root = as("default", {CallStep("las__inspect_events", {{"from", from}, {"limit", 200}})},
                   {"--admin"});
    ASSERT_EQ(root.exit_code, 0) << root.err;
    const json answer = root.steps[0]["result"]["structuredContent"];
    ASSERT_TRUE(answer["events"].is_array()) << root.steps[0].dump();
    for (const json& event : answer["events"]) events.push_back(event);
    from = answer["next_from"];
  }
  ASSERT_GE(events.size(), logged);
  const std::string page = events.dump();
  EXPECT_EQ(page.find("bob-SECRET-123"), std::string::npos);
  EXPECT_EQ(page.find("api-token"), std::string::npos);
  EXPECT_EQ(page.find("PIN 4711"), std::string::npos);
  EXPECT_EQ(page.find("merger with ACME"), std::string::npos);
  EXPECT_EQ(page.find("hunter2"), std::string::npos) << "a denial's detail names argument keys";
  const std::string handle_id = bob.steps[4]["result"]["structuredContent"]["record"]["handle"]["handle_id"];
  EXPECT_EQ(page.find(handle_id), std::string::npos) << "a handle id confirms a guessed content";
  EXPECT_NE(page.find("visible"), std::string::npos) << "the caller's own state is shown";
  std::set<std::string> withheld_kinds;
  for (const json& event : events) {
    if (!event.contains("withheld")) continue;
    withheld_kinds.insert(event["kind"].get<std::string>());
    EXPECT_EQ(event["agent"], "bob") << event.dump();
    for (const json& name : event["withheld"]) EXPECT_FALSE(event["payload"].contains(name)) << event.dump();
  }
  EXPECT_EQ(withheld_kinds, (std::set<std::string>{"StateWritten", "MessageSent", "HandleCreated",
                                                   "ToolCallRequested", "ToolCallCompleted",
                                                   "ToolCallDenied"}));
  bool replayed = false;
  for (const json& event : Replay({"--kind", "StateWritten"})) {
    replayed = replayed || event["payload"]["value"] == "\"bob-SECRET-123\"";
  }
  EXPECT_TRUE(replayed) << "the operator's replay shows it whole";
}

TEST_F(SourcesE2eTest, LazyListsOnlyDiscoveryAndLasCallReachesToolsThroughTheGuards) {
  auto run = Serve(
      {{{"op", "listTools"}},
       CallStep("las__search", {{"query", "echo message"}}),
       CallStep("las__describe", {{"name", "echo__ehco"}}),
       CallStep("las__describe", {{"name", "echo__echo"}}),
       CallStep("las__list_tools", {{"source", "echo"}, {"limit", 2}}),
       CallStep("las__call", {{"name", "echo__echo"}, {"arguments", {{"message", "via call"}}}}),
       CallStep("las__call", {{"name", "las__call"}, {"arguments", {{"name", "echo__echo"}}}}),
       CallStep("las__call", {{"name", "las__list_sources"}}),
       CallStep("las__call", {{"name", "echo__echo"}, {"arguments", {{"message", 5}}}}),
       CallStep("las__read_doc", {{"name", "troubleshooting"}}),
       CallStep("las__list_tools", {{"source", "ehco"}}),
       CallStep("las__call",
                {{"name", "las__grant_revoke"}, {"arguments", {{"grant_id", "g-none"}}}}),
       CallStep("las__call", {{"name", "echo__echo"}, {"arguments", json::array()}}),
       CallStep("las__call", {{"name", "echo__echo"}, {"arguments", nullptr}})},
      {"--lazy"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ListedNames(run.steps[0]),
            (std::set<std::string>{"las__call", "las__describe", "las__list_tools",
                                   "las__onboarding", "las__search"}))
      << "the discovery tools, and las__onboarding always";
  const json results = run.steps[1]["result"]["structuredContent"]["results"];
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results[0]["name"], "echo__echo");
  EXPECT_EQ(results[0]["source"], "echo");
  EXPECT_FALSE(results[0].contains("inputSchema"));
  EXPECT_EQ(run.steps[2]["result"]["isError"], true);
  const json nearest = run.steps[2]["result"]["structuredContent"]["nearest"];
  ASSERT_FALSE(nearest.empty());
  EXPECT_EQ(nearest[0], "echo__echo");
  EXPECT_EQ(run.steps[3]["result"]["structuredContent"]["inputSchema"]["required"],
            json({"message"}));
  // In the child's order of members, as tools/list serves it (probe IX2: sorted by name).
  EXPECT_NE(StepText(run.steps[3]).find(R"("inputSchema":{"type":"object","properties":{"message":)"),
            std::string::npos)
      << StepText(run.steps[3]);
  const json window = run.steps[4]["result"]["structuredContent"];
  EXPECT_EQ(window["total"], 3);
  EXPECT_EQ(window["tools"].size(), 2u);
  EXPECT_EQ(window["tools"][0]["name"], "echo__content_stats");
  EXPECT_EQ(window["has_more"], true);
  EXPECT_EQ(window["next_offset"], 2);
  EXPECT_EQ(StepText(run.steps[5]), "Echo: via call");
  EXPECT_EQ(run.steps[6]["ok"], false) << "las__call cannot call itself";
  EXPECT_EQ(run.steps[7]["ok"], false) << "no las.admin without --admin";
  EXPECT_EQ(run.steps[8]["ok"], false);
  EXPECT_EQ(run.steps[8]["error"]["code"], -32602) << "the signed schema still applies";
  EXPECT_NE(StepText(run.steps[9]).find("No catalog loaded for"), std::string::npos);
  const json unknown = run.steps[10]["result"]["structuredContent"];
  EXPECT_EQ(run.steps[10]["result"]["isError"], true);
  EXPECT_EQ(unknown["error"], "unknown-source");
  EXPECT_NE(std::find(unknown["sources"].begin(), unknown["sources"].end(), "echo"),
            unknown["sources"].end())
      << unknown.dump();

  // The call made through las__call is recorded like a direct one.
  auto requested = Replay({"--kind", "ToolCallRequested"});
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0]["payload"]["surface"], "echo");
  EXPECT_EQ(requested[0]["payload"]["tool"], "echo");
  bool unknown_admin = false;
  bool recursion = false;  // probe X2: this refusal too is recorded
  std::string recursion_request_id;
  int revocations_refused = 0;
  int calls_refused = 0;
  for (const auto& event : Replay({"--kind", "ToolCallDenied"})) {
    if (event["payload"]["tool"] == "las__list_sources") {
      unknown_admin = event["payload"]["reason"] == "unknown-tool";
    }
    if (event["payload"]["tool"] == "call") {
      ++calls_refused;
      recursion = event["payload"]["reason"] == "recursive-call";
      recursion_request_id = event["payload"]["request_id"];
    }
    if (event["payload"]["tool"] == "grant_revoke") ++revocations_refused;
  }
  EXPECT_TRUE(unknown_admin);
  EXPECT_TRUE(recursion);
  EXPECT_EQ(StepText(run.steps[11]).rfind("Refused: ", 0), 0u) << run.steps[11].dump();
  // An own tool's refusal through las__call is recorded once, as the inner call's (BJ1).
  EXPECT_EQ(revocations_refused, 1);
  EXPECT_EQ(calls_refused, 1) << "only the las__call that called itself";
  // Arguments that are not an object, or null (none), are judged as a direct call's and
  // recorded as the call of the tool named (probe IG1).
  EXPECT_EQ(run.steps[12]["ok"], false);
  EXPECT_EQ(run.steps[13]["ok"], false) << "null is no arguments: echo's message is missing";
  std::vector<std::string> echo_refusals;
  for (const auto& event : Replay({"--kind", "ToolCallDenied", "--surface", "echo"})) {
    echo_refusals.push_back(event["payload"]["reason"]);
  }
  EXPECT_EQ(echo_refusals, (std::vector<std::string>{"arguments-schema-violation",
                                                     "arguments-invalid",
                                                     "arguments-schema-violation"}));
  // Probe BH6: under the client's own request ids (the SDK numbers its requests in order;
  // steps 5 and 6 are consecutive), never "null".
  const std::string via_call_request_id = requested[0]["payload"]["request_id"];
  ASSERT_FALSE(via_call_request_id.empty());
  ASSERT_TRUE(std::all_of(via_call_request_id.begin(), via_call_request_id.end(),
                          [](char c) { return c >= '0' && c <= '9'; }))
      << via_call_request_id;
  EXPECT_EQ(recursion_request_id, std::to_string(std::stoll(via_call_request_id) + 1));
}

// The MCP reference server lists resources and prompts: they land in its source.
TEST(SourcesEverythingTest, ResourcesAndPromptsOfAChildAreInItsSource) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir tmp;
  const testing::EverythingRelease release = testing::ReleaseServerEverything(tmp);
  ASSERT_FALSE(HasFailure());
  auto run = testing::RunServe(
      tmp.Sub("log"), release.registry_path, testing::EnvObject(release.env),
      json::array({CallStep("las__inspect_source", {{"id", "everything"}})}), {"--admin"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json source = run.steps[0]["result"]["structuredContent"];
  EXPECT_EQ(source["kind"], "connection");
  EXPECT_FALSE(source["tools"].empty());
  ASSERT_FALSE(source["resources"].empty()) << source.dump();
  EXPECT_FALSE(source["resources"][0]["uri"].get<std::string>().empty());
  EXPECT_FALSE(source["prompts"].empty()) << source.dump();
}

// las.docs as real MCP resources and prompts through the SDK client's own methods (which
// also check that `initialize` advertised them); a disabled las.docs serves none.
TEST_F(SourcesE2eTest, LasDocsAreMcpResourcesAndPromptsUntilDisabled) {
  auto run = Serve({{{"op", "listResources"}},
                    {{"op", "readResource"}, {"uri", "las://docs/troubleshooting"}},
                    {{"op", "listPrompts"}},
                    {{"op", "getPrompt"}, {"name", "author-surface"}},
                    {{"op", "readResource"}, {"uri", "las://docs/nope"}},
                    CallStep("las__read_doc", {{"name", "troubleshooting"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> uris;
  for (const auto& r : run.steps[0]["result"]["resources"]) {
    uris.insert(r["uri"].get<std::string>());
    EXPECT_EQ(r["mimeType"], "text/markdown");
  }
  EXPECT_EQ(uris, (std::set<std::string>{"las://docs/authoring", "las://docs/operator-manual",
                                         "las://docs/troubleshooting"}));
  const json& contents = run.steps[1]["result"]["contents"];
  ASSERT_EQ(contents.size(), 1u) << run.steps[1].dump();
  EXPECT_EQ(contents[0]["uri"], "las://docs/troubleshooting");
  EXPECT_EQ(contents[0]["text"], StepText(run.steps[5])) << "the same text as las__read_doc";
  std::set<std::string> prompts;
  for (const auto& p : run.steps[2]["result"]["prompts"]) prompts.insert(p["name"].get<std::string>());
  EXPECT_EQ(prompts, (std::set<std::string>{"author-surface", "troubleshoot-surface"}));
  const json& message = run.steps[3]["result"]["messages"][0];
  EXPECT_EQ(message["role"], "user");
  EXPECT_NE(message["content"]["text"].get<std::string>().find("las://docs/authoring"),
            std::string::npos);
  EXPECT_EQ(run.steps[4]["ok"], false);
  EXPECT_EQ(run.steps[4]["error"]["code"], -32002) << "MCP's resource-not-found (probe CU3)";

  auto disabled = Las({"sources", "disable", "las.docs", "--reason", "quiet"});
  ASSERT_EQ(disabled.exit_code, 0) << disabled.err;
  auto off = Serve({{{"op", "listResources"}},
                    {{"op", "readResource"}, {"uri", "las://docs/troubleshooting"}},
                    {{"op", "listPrompts"}},
                    {{"op", "getPrompt"}, {"name", "author-surface"}},
                    CallStep("las__read_doc", {{"name", "troubleshooting"}}),
                    {{"op", "listTools"}}});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  ASSERT_FALSE(off.steps[5]["result"]["tools"].empty()) << off.steps[5].dump();
  for (const json& tool : off.steps[5]["result"]["tools"]) {
    EXPECT_NE(tool["name"], "las__read_doc") << "a disabled source's tool is not listed";
  }
  EXPECT_TRUE(off.steps[0]["result"]["resources"].empty()) << off.steps[0].dump();
  EXPECT_EQ(off.steps[1]["error"]["code"], -32002);
  EXPECT_TRUE(off.steps[2]["result"]["prompts"].empty()) << off.steps[2].dump();
  EXPECT_EQ(off.steps[3]["error"]["code"], -32602);
  EXPECT_EQ(off.steps[4]["error"]["code"], -32602) << off.steps[4].dump();
  // Refused as the source guard refuses, and recorded so (probe CQ1: it was not recorded).
  const std::vector<json> denied = Replay({"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["tool"], "read_doc");
  EXPECT_EQ(denied[0]["payload"]["reason"], "source-disabled");
}

}  // namespace
}  // namespace las
