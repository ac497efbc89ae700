// Sources, discovery and lazy listing through the real `las serve`, driven by the official
// MCP SDK client: a federation with a failed surface, tool-only children, a source disabled
// by the CLI across restarts, `--lazy`, and las__call under the same guards.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "tests/e2e/sdk_driver.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

const std::string kStandIn = std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py";
const std::string kTestChild =
    std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py";

json Call(const std::string& name, json arguments = json::object()) {
  return {{"op", "callTool"}, {"name", name}, {"arguments", arguments}};
}

std::string Text(const json& step) {
  return step["result"]["content"][0]["text"].get<std::string>();
}

std::set<std::string> ListedNames(const json& step) {
  std::set<std::string> names;
  for (const auto& tool : step["result"]["tools"]) names.insert(tool["name"]);
  return names;
}

class SourcesE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    const std::string stand_in = release_->CopyIntoWorkspace(kStandIn, "stand_in.py");
    const std::string child = release_->CopyIntoWorkspace(kTestChild, "mcp_child.py");
    release_->AddSurface("echo", {"/usr/bin/python3", stand_in, "echo"});
    release_->AddSurface("flaky", {"/usr/bin/python3", child});
    ASSERT_FALSE(HasFailure());
    trust::SurfaceBinding dead = *release_->manifest().FindSurface("flaky");
    dead.name = "dead";
    dead.argv.push_back("--exit-at-start");
    dead.argv.push_back("3");
    release_->AddBinding(dead);
    release_->Sign(1);
  }

  testing::SdkRun Serve(json steps, std::vector<std::string> extra_args = {}) {
    json env = json::object();
    for (const auto& entry : release_->Environment()) {
      auto eq = entry.find('=');
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    json args = {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()};
    for (auto& a : extra_args) args.push_back(a);
    return testing::RunSdkClient(
        {{"command", LAS_EXECUTABLE}, {"args", args}, {"env", env}, {"steps", steps}});
  }

  testing::CommandResult Las(std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(tmp_.Sub("log"));
    args.push_back("--registry");
    args.push_back(release_->registry_path());
    return testing::RunCommand(args);
  }

  std::vector<json> Replay(std::vector<std::string> filter) {
    std::vector<std::string> argv = {LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log")};
    argv.insert(argv.end(), filter.begin(), filter.end());
    auto result = testing::RunCommand(argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::vector<json> events;
    for (const auto& line : testing::Lines(result.out)) events.push_back(json::parse(line));
    return events;
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(SourcesE2eTest, AFailedSurfaceIsASourceWithZeroCapabilitiesAndToolOnlyChildrenServe) {
  auto run = Serve({Call("las__list_sources", {{"limit", 200}}),
                    Call("las__inspect_source", {{"id", "echo"}}),
                    Call("las__inspect_source", {{"id", "dead"}}),
                    Call("echo__echo", {{"message", "tool-only works"}})},
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
  // stand_in.py and mcp_child.py answer resources/list and prompts/list with -32601.
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
  EXPECT_EQ(Text(run.steps[3]), "Echo: tool-only works");
}

TEST_F(SourcesE2eTest, ADisabledSourceStaysDisabledAcrossRestartUntilEnabled) {
  ASSERT_EQ(Serve({{{"op", "ping"}}}).exit_code, 0);
  auto disabled = Las({"sources", "disable", "echo", "--reason", "maintenance"});
  ASSERT_EQ(disabled.exit_code, 0) << disabled.err;

  auto run = Serve({{{"op", "listTools"}},
                    Call("echo__echo", {{"message", "hi"}}),
                    Call("las__call", {{"name", "echo__echo"}, {"arguments", {{"message", "hi"}}}}),
                    Call("flaky__echo", {{"text", "others serve"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto names = ListedNames(run.steps[0]);
  for (const auto& name : names) EXPECT_NE(name.rfind("echo__", 0), 0u) << name;
  EXPECT_TRUE(names.count("flaky__echo"));
  EXPECT_EQ(run.steps[1]["ok"], false);
  EXPECT_EQ(run.steps[2]["ok"], false) << "las__call passes the same guard";
  EXPECT_EQ(Text(run.steps[3]), "others serve");
  int source_disabled = 0;
  for (const auto& event : Replay({"--kind", "ToolCallDenied"})) {
    if (event["payload"]["reason"] == "source-disabled") {
      EXPECT_EQ(event["payload"]["surface"], "echo");
      ++source_disabled;
    }
  }
  EXPECT_EQ(source_disabled, 2);

  // Enabled through the server's las.admin tool: at once, and recorded.
  auto enabled = Serve({Call("las__enable_source", {{"id", "echo"}}),
                        Call("echo__echo", {{"message", "back"}}), {{"op", "listTools"}},
                        Call("las__disable_source", {{"id", "las"}})},
                       {"--admin"});
  ASSERT_EQ(enabled.exit_code, 0) << enabled.err;
  EXPECT_EQ(enabled.steps[0]["result"]["structuredContent"]["enabled"], true);
  EXPECT_EQ(Text(enabled.steps[1]), "Echo: back");
  EXPECT_TRUE(ListedNames(enabled.steps[2]).count("echo__echo"));
  EXPECT_EQ(enabled.steps[3]["result"]["isError"], true) << "las cannot be disabled";
  auto toggles = Replay({"--kind", "SourceEnabled"});
  ASSERT_EQ(toggles.size(), 1u);
  EXPECT_EQ(toggles[0]["payload"]["source_id"], "echo");
}

TEST_F(SourcesE2eTest, LazyListsOnlyDiscoveryAndLasCallReachesToolsThroughTheGuards) {
  auto run = Serve(
      {{{"op", "listTools"}},
       Call("las__search", {{"query", "echo message"}}),
       Call("las__describe", {{"name", "echo__ehco"}}),
       Call("las__describe", {{"name", "echo__echo"}}),
       Call("las__list_tools", {{"source", "echo"}, {"limit", 2}}),
       Call("las__call", {{"name", "echo__echo"}, {"arguments", {{"message", "via call"}}}}),
       Call("las__call", {{"name", "las__call"}, {"arguments", {{"name", "echo__echo"}}}}),
       Call("las__call", {{"name", "las__list_sources"}}),
       Call("las__call", {{"name", "echo__echo"}, {"arguments", {{"message", 5}}}}),
       Call("las__read_doc", {{"name", "troubleshooting"}})},
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
  const json window = run.steps[4]["result"]["structuredContent"];
  EXPECT_EQ(window["total"], 3);
  EXPECT_EQ(window["tools"].size(), 2u);
  EXPECT_EQ(window["tools"][0]["name"], "echo__content_stats");
  EXPECT_EQ(window["has_more"], true);
  EXPECT_EQ(window["next_offset"], 2);
  EXPECT_EQ(Text(run.steps[5]), "Echo: via call");
  EXPECT_EQ(run.steps[6]["ok"], false) << "las__call cannot call itself";
  EXPECT_EQ(run.steps[7]["ok"], false) << "no las.admin without --admin";
  EXPECT_EQ(run.steps[8]["ok"], false);
  EXPECT_EQ(run.steps[8]["error"]["code"], -32602) << "the signed schema still applies";
  EXPECT_NE(Text(run.steps[9]).find("No catalog loaded for"), std::string::npos);

  // The call made through las__call is recorded like a direct one.
  auto requested = Replay({"--kind", "ToolCallRequested"});
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0]["payload"]["surface"], "echo");
  EXPECT_EQ(requested[0]["payload"]["tool"], "echo");
  bool unknown_admin = false;
  for (const auto& event : Replay({"--kind", "ToolCallDenied"})) {
    if (event["payload"]["tool"] == "las__list_sources") {
      unknown_admin = event["payload"]["reason"] == "unknown-tool";
    }
  }
  EXPECT_TRUE(unknown_admin);
}

// The MCP reference server lists resources and prompts: they land in its source.
TEST(SourcesEverythingTest, ResourcesAndPromptsOfAChildAreInItsSource) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir tmp;
  ::chmod(tmp.path().c_str(), 0700);
  const std::string workspace =
      std::filesystem::canonical(std::string(LAS_SOURCE_DIR) + "/tests/e2e").string();
  const std::vector<std::string> env = {
      "LAS_WORKSPACE=" + workspace,
      "LAS_NODE=" + testing::NodeExecutable(),
      "LAS_RELEASE_MANIFEST=" + tmp.Sub("release.json"),
      "LAS_RELEASE_SIGNATURE=" + tmp.Sub("release.sig"),
      "LAS_TRUST_STORE=" + tmp.Sub("trust.json"),
      "LAS_RELEASE_WATERMARK=" + tmp.Sub("watermark.json"),
  };
  auto las = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    return testing::RunCommand(args, env);
  };
  ASSERT_EQ(las({"release", "keygen", "--out-dir", tmp.Sub("keys"), "--trust-store",
                 tmp.Sub("trust.json")}).exit_code, 0);
  auto draft = las({"release", "draft", "--surface", "everything", "--cwd", workspace, "--",
                    testing::NodeExecutable(), testing::ServerEverythingScript(), "stdio"});
  ASSERT_EQ(draft.exit_code, 0) << draft.err;
  ASSERT_EQ(las({"release", "sign", "--secret-key", tmp.Sub("keys/release.key"), "--sequence",
                 "1", "--expires-in", "1d"}).exit_code, 0);
  std::ofstream(tmp.Sub("registry.json"))
      << R"({"schema_version":1,"surfaces":[{"name":"everything"}]})";
  json env_object = json::object();
  for (const auto& entry : env) {
    env_object[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  }
  auto run = testing::RunSdkClient(
      {{"command", LAS_EXECUTABLE},
       {"args", {"serve", "--admin", "--log", tmp.Sub("log"), "--registry", tmp.Sub("registry.json")}},
       {"env", env_object},
       {"steps", {Call("las__inspect_source", {{"id", "everything"}})}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json source = run.steps[0]["result"]["structuredContent"];
  EXPECT_EQ(source["kind"], "connection");
  EXPECT_FALSE(source["tools"].empty());
  ASSERT_FALSE(source["resources"].empty()) << source.dump();
  EXPECT_FALSE(source["resources"][0]["uri"].get<std::string>().empty());
  EXPECT_FALSE(source["prompts"].empty()) << source.dump();
}

}  // namespace
}  // namespace las
