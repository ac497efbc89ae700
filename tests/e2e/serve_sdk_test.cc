// `las serve` driven by the official MCP TypeScript SDK client over stdio.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/e2e/sdk_driver.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

class ServeSdkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  }
  json Script(json steps, json env = json::object()) {
    return {{"command", LAS_EXECUTABLE},
            {"args", {"serve", "--log", tmp_.Sub("log")}},
            {"env", env},
            {"steps", steps}};
  }
  testing::TempDir tmp_;
};

TEST_F(ServeSdkTest, InitializesListsCallsAndGetsErrors) {
  auto run = testing::RunSdkClient(Script(json::array({
      {{"op", "listTools"}},
      {{"op", "callTool"}, {"name", "las__onboarding"}, {"arguments", json::object()}},
      {{"op", "ping"}},
      {{"op", "request"}, {"method", "resources/subscribe"}},
      {{"op", "callTool"}, {"name", "nosuch__tool"}},
  })));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.connect["ok"], true) << run.connect.dump();
  EXPECT_EQ(run.connect["server"]["name"], "las");
  ASSERT_EQ(run.steps.size(), 5u);
  const json& tools = run.steps[0]["result"]["tools"];
  ASSERT_FALSE(tools.empty());
  bool onboarding = false;
  for (const auto& tool : tools) {
    const std::string name = tool["name"];
    EXPECT_EQ(name.rfind("las__", 0), 0u) << "with no release only Las's own tools: " << name;
    onboarding = onboarding || name == "las__onboarding";
  }
  EXPECT_TRUE(onboarding);
  // With nothing set up, the journey starts at its first step.
  EXPECT_NE(run.steps[1]["result"]["content"][0]["text"].get<std::string>().find(
                R"("current":"trust-store")"),
            std::string::npos);
  EXPECT_EQ(run.steps[2]["ok"], true);
  EXPECT_EQ(run.steps[3]["error"]["code"], -32601);
  EXPECT_EQ(run.steps[4]["ok"], false);
  EXPECT_EQ(run.steps[4]["error"]["code"], -32602);

  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"),
                                     "--kind", "SessionOpened", "--kind", "SessionClosed"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto lines = testing::Lines(replay.out);
  ASSERT_EQ(lines.size(), 2u) << "the SDK client's session opened and closed";
  EXPECT_EQ(json::parse(lines[0])["payload"]["client_name"], "las-e2e");
  EXPECT_EQ(json::parse(lines[1])["payload"]["reason"], "eof");
}

// The SDK writes a request's id last. A request over the line bound, or one that does not
// parse (nested too deep; a lone surrogate, as JSON.stringify writes a string cut inside an
// emoji), is still answered with its error at once, not left to the SDK's own timeout
// (probes AR2, AR3), and the session goes on.
TEST_F(ServeSdkTest, RequestsTooLargeOrUnparsableAreAnsweredInTheSdksMemberOrder) {
  json deep = "bottom";
  for (int i = 0; i < 70; ++i) deep = json::array({deep});
  auto set = [](json value) {
    return json{{"op", "callTool"}, {"name", "las__state_set"},
                {"arguments", {{"key", "k"}, {"value", std::move(value)}}}};
  };
  auto run = testing::RunSdkClient(Script(json::array({
      set(std::string(5 * 1024 * 1024, 'x')),
      {{"op", "callTool"}, {"name", "las__state_set"},
       {"argumentsText", R"({"key":"k","value":"abc\ud800"})"}},
      set(deep),
      {{"op", "ping"}},
  })));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps.size(), 4u);
  EXPECT_EQ(run.steps[0]["error"]["code"], -32600) << run.steps[0].dump();
  EXPECT_EQ(run.steps[1]["error"]["code"], -32700) << run.steps[1].dump();
  EXPECT_EQ(run.steps[2]["error"]["code"], -32700) << run.steps[2].dump();
  EXPECT_EQ(run.steps[3]["ok"], true) << run.steps[3].dump();
}

TEST_F(ServeSdkTest, AgentIdComesFromLasAgentIdWhenTheClientSendsNone) {
  auto run = testing::RunSdkClient(Script(json::array({{{"op", "ping"}}}),
                                          {{"LAS_AGENT_ID", "agent-from-env"}}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto replay = testing::RunCommand(
      {LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"), "--agent", "agent-from-env"});
  EXPECT_EQ(testing::Lines(replay.out).size(), 2u) << replay.out;
}

}  // namespace
}  // namespace las

namespace las {
namespace {

// The README's main job (examples/demo.sh) end to end, with this build's `las`.
TEST(MainJobTest, TheDemoSignsServesAndReplays) {
  testing::TempDir tmp;
  auto result = testing::RunCommand({"/bin/bash", std::string(LAS_SOURCE_DIR) + "/examples/demo.sh"},
                                    {std::string("LAS=") + LAS_EXECUTABLE,
                                     "LAS_DEMO_DIR=" + tmp.Sub("demo")});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("las check: ok"), std::string::npos) << result.out;
  // Tool count: 32 stand-in tools after the Tama/Warsztat allowlists (docs/POLICIES.md)
  // plus Las's own las__ tools, whose number grows with features: not pinned here.
  EXPECT_NE(result.out.find(" tools: brama__detect"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("skarbiec capability_request skarbiec-ttl"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("tama install_hook policy-tool-not-allowed"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("Title of https://example.org"), std::string::npos) << result.out;
  // `las grant` gave demo-agent four exact tools: anything else is denied at once.
  EXPECT_NE(result.out.find("most health no-grant"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("arguments-schema-violation"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("las replay: verified"), std::string::npos) << result.err;
}

// Probe FZ2: the demo's `mkdir -p` adopted a directory another user made under an open
// parent in the moment after its rm, and then ran their workspace's code. A parent others
// may change is refused before anything is made.
TEST(MainJobTest, TheDemoRefusesADirectoryUnderAParentOthersMayChange) {
  testing::TempDir tmp;
  const std::string open = tmp.Sub("open");
  ASSERT_EQ(::mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  auto result = testing::RunCommand({"/bin/bash", std::string(LAS_SOURCE_DIR) + "/examples/demo.sh"},
                                    {std::string("LAS=") + LAS_EXECUTABLE,
                                     "LAS_DEMO_DIR=" + open + "/demo"});
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("demo: " + open + " may be changed by other users (mode 777"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(open + "/demo")) << "nothing made";
}

}  // namespace
}  // namespace las
