// State, messages and handles through real `las serve` processes and the official MCP SDK
// client: state survives a restart with the same projection digests `las replay` computes,
// an older version comes back whole from the log, a handle is readable by its owner only,
// and a large child result becomes a handle.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

using testing::CallStep;
using testing::StepText;  // the exact JSON text the tool answered
json Structured(const json& step) { return step["result"]["structuredContent"]; }

class StateE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // `registry` "" serves Las's own tools only.
  testing::SdkRun Serve(const std::string& agent, json steps, json env = json::object(),
                        const std::string& registry = "") {
    if (!agent.empty()) env["LAS_AGENT_ID"] = agent;  // "": the default agent
    auto run = testing::RunServe(tmp_.Sub("log"), registry, env, steps);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.connect["ok"], true) << run.connect.dump();
    return run;
  }
  json ReplayDigests() {
    auto replay = testing::RunCommand(
        {LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"), "--kind", "StateWritten", "--summary"});
    EXPECT_EQ(replay.exit_code, 0) << replay.err;
    auto lines = testing::Lines(replay.out);
    EXPECT_FALSE(lines.empty());
    if (lines.empty()) return json();
    json summary = json::parse(lines.back())["summary"];
    EXPECT_EQ(summary["ok"], true);
    return summary["digests"];
  }
  // A release of the test child as surface `flaky`, signed, in release_.
  void SignFlakyRelease() {
    std::filesystem::create_directories(tmp_.Sub("release"));
    release_ = std::make_unique<testing::SignedRelease>(tmp_.Sub("release"));
    testing::AddTestChild(*release_, "flaky");
    ASSERT_FALSE(HasFailure());
    release_->Sign(1);
  }
  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(StateE2eTest, StateSurvivesARestartAndHandlesStayWithTheirOwner) {
  const std::string big = "123456789012345678901234567890";
  const std::string large(40000, 'L');
  auto first = Serve("alice", json::array({
      CallStep("las__state_set", {{"key", "k"}, {"value_json", R"({"n":)" + big + "}"}}),
      CallStep("las__state_cas", {{"scope", "blackboard"}, {"key", "plan"},
                              {"expected_version", 0}, {"value", "v1"}}),
      CallStep("las__state_set", {{"key", "large"}, {"value", large}}),
      CallStep("las__state_get", {{"key", "large"}}),
      CallStep("las__message_send", {{"to", "bob"}, {"subject", "hello"}, {"body", {{"x", 1}}}}),
  }));
  ASSERT_EQ(first.steps.size(), 5u);
  EXPECT_EQ(Structured(first.steps[1])["version"], 1);
  const json handle = Structured(first.steps[3])["record"]["handle"];
  ASSERT_TRUE(handle.is_object()) << first.steps[3].dump().substr(0, 500);
  const std::string handle_id = handle["handle_id"];
  const json before = ReplayDigests();
  for (const char* name : {"state", "mailbox", "handles"}) {
    EXPECT_TRUE(before.contains(name)) << name;
  }

  // A new process folds the same log: the values are there, exact.
  auto second = Serve("alice", json::array({
      CallStep("las__state_get", {{"key", "k"}}),
      CallStep("las__state_cas", {{"scope", "blackboard"}, {"key", "plan"},
                              {"expected_version", 0}, {"value", "lost"}}),
      CallStep("las__handle_read", {{"handle_id", handle_id}, {"offset", 0}, {"length", 65536}}),
  }));
  ASSERT_EQ(second.steps.size(), 3u);
  EXPECT_NE(StepText(second.steps[0]).find(R"("value":{"n":)" + big + "}"), std::string::npos)
      << StepText(second.steps[0]);
  EXPECT_EQ(second.steps[1]["result"]["isError"], true);
  EXPECT_EQ(Structured(second.steps[1])["error"]["code"], "version-conflict");
  EXPECT_EQ(Structured(second.steps[1])["error"]["current_version"], 1);
  const json span = Structured(second.steps[2]);
  EXPECT_EQ(span["size"], large.size() + 2);
  EXPECT_EQ(span["text"], "\"" + large + "\"");
  EXPECT_EQ(span["eof"], true);
  EXPECT_EQ(ReplayDigests()["state"], before["state"]) << "reads and a lost CAS change no state";

  // Another agent cannot read alice's handle; its mailbox has alice's message.
  auto third = Serve("bob", json::array({
      CallStep("las__handle_read", {{"handle_id", handle_id}}),
      CallStep("las__message_list", json::object()),
      CallStep("las__state_get", {{"key", "k"}}),
  }));
  ASSERT_EQ(third.steps.size(), 3u);
  EXPECT_EQ(Structured(third.steps[0])["error"]["code"], "handle-not-found");
  ASSERT_EQ(Structured(third.steps[1])["messages"].size(), 1u);
  EXPECT_EQ(Structured(third.steps[1])["messages"][0]["from_agent_id"], "alice");
  EXPECT_EQ(Structured(third.steps[1])["messages"][0]["state"], "unread");
  EXPECT_EQ(Structured(third.steps[2])["found"], false) << "alice's private state is hers";
  EXPECT_EQ(ReplayDigests()["state"], before["state"]);

  // Bob writes version 2 of the plan; its history, in a later process, has both versions
  // whole — version 1 read back from alice's StateWritten in the log.
  Serve("bob", json::array({CallStep("las__state_cas", {{"scope", "blackboard"}, {"key", "plan"},
                                                        {"expected_version", 1}, {"value", "v2"}})}));
  auto fifth = Serve("carol", json::array({CallStep(
      "las__state_history", {{"scope", "blackboard"}, {"key", "plan"}})}));
  ASSERT_EQ(fifth.steps.size(), 1u);
  const json records = Structured(fifth.steps[0])["records"];
  ASSERT_EQ(records.size(), 2u) << fifth.steps[0].dump().substr(0, 500);
  EXPECT_EQ(records[0]["version"], 1);
  EXPECT_EQ(records[0]["author_agent_id"], "alice");
  EXPECT_EQ(records[0]["value"], "v1");
  EXPECT_EQ(records[0]["reducer"], "replace");
  EXPECT_EQ(records[1]["version"], 2);
  EXPECT_EQ(records[1]["author_agent_id"], "bob");
  EXPECT_EQ(records[1]["value"], "v2");
  EXPECT_LT(records[0]["time_micros"].get<int64_t>(), records[1]["time_micros"].get<int64_t>());
  EXPECT_TRUE(Structured(fifth.steps[0])["next"].is_null());
}

// --max-state-bytes-per-agent through the real binary: what an agent holds is counted from
// the log, so a restart refuses the same write; 0 lifts the bound.
TEST_F(StateE2eTest, TheStateQuotaFlagHoldsAcrossARestart) {
  auto set = [](const std::string& key, size_t length) {
    return CallStep("las__state_set", {{"key", key}, {"value", std::string(length, 'q')}});
  };
  auto quota = [&](const std::string& bytes, const json& steps) {
    auto run = testing::RunServe(tmp_.Sub("log"), "", {{"LAS_AGENT_ID", "alice"}}, steps,
                                 {"--max-state-bytes-per-agent", bytes});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run;
  };
  auto first = quota("2000", json::array({set("k", 1500), set("k2", 600)}));
  ASSERT_EQ(first.steps.size(), 2u);
  EXPECT_EQ(Structured(first.steps[0])["version"], 1);
  const json refused = Structured(first.steps[1])["error"];
  EXPECT_EQ(refused["code"], "state-quota-exceeded") << first.steps[1].dump();
  EXPECT_EQ(refused["quota_bytes"], 2000);
  const uint64_t held = refused["held_bytes"];
  EXPECT_EQ(held, 1 + 1502 + 128u);

  auto second = quota("2000", json::array({set("k2", 600)}));
  ASSERT_EQ(second.steps.size(), 1u);
  EXPECT_EQ(Structured(second.steps[0])["error"]["held_bytes"], held) << second.steps[0].dump();
  auto unbounded = quota("0", json::array({set("k2", 600)}));
  ASSERT_EQ(unbounded.steps.size(), 1u);
  EXPECT_EQ(Structured(unbounded.steps[0])["version"], 1) << unbounded.steps[0].dump();
}

// --max-open-messages-per-agent through the real binary: the open messages, and each
// sender's, are counted from the log, so a restart refuses the same send; 0 lifts the bound.
TEST_F(StateE2eTest, TheMailboxBoundFlagHoldsAcrossARestart) {
  const json send = CallStep("las__message_send", {{"to", "bob"}, {"subject", "s"}});
  auto bounded = [&](const std::string& limit, const json& steps) {
    auto run = testing::RunServe(tmp_.Sub("log"), "", {{"LAS_AGENT_ID", "alice"}}, steps,
                                 {"--max-open-messages-per-agent", limit});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run;
  };
  auto first = bounded("1", json::array({send, send}));
  ASSERT_EQ(first.steps.size(), 2u);
  EXPECT_TRUE(Structured(first.steps[0]).contains("message_id")) << first.steps[0].dump();
  const json refused = Structured(first.steps[1])["error"];
  EXPECT_EQ(refused["code"], "mailbox-full") << first.steps[1].dump();
  EXPECT_EQ(refused["limit"], 1);
  auto second = bounded("1", json::array({send}));
  ASSERT_EQ(second.steps.size(), 1u);
  EXPECT_EQ(Structured(second.steps[0])["error"]["code"], "mailbox-full") << second.steps[0].dump();
  auto unbounded = bounded("0", json::array({send}));
  ASSERT_EQ(unbounded.steps.size(), 1u);
  EXPECT_TRUE(Structured(unbounded.steps[0]).contains("message_id")) << unbounded.steps[0].dump();
  // alice holds two of bob's open messages: half of a bound of 4, her share, also counted
  // from the log.
  auto shared = bounded("4", json::array({send}));
  ASSERT_EQ(shared.steps.size(), 1u);
  EXPECT_EQ(Structured(shared.steps[0])["error"]["sender_limit"], 2) << shared.steps[0].dump();
}

TEST_F(StateE2eTest, ALargeChildResultBecomesAHandleItsAgentReadsBack) {
  ASSERT_NO_FATAL_FAILURE(SignFlakyRelease());
  const json env = testing::EnvObject(release_->Environment());
  const std::string text(200000, 'e');
  auto run = Serve("alice", json::array({CallStep("flaky__echo", {{"text", text}})}), env,
                   release_->registry_path());
  ASSERT_EQ(run.steps.size(), 1u);
  const json handle = Structured(run.steps[0])["handle"];
  ASSERT_TRUE(handle.is_object()) << run.steps[0].dump().substr(0, 500);
  EXPECT_GT(handle["size"].get<size_t>(), text.size());

  // The owner (a later session of the same agent) reads the whole result back in spans.
  json steps = json::array();
  for (size_t offset = 0; offset < handle["size"].get<size_t>(); offset += 65536) {
    steps.push_back(CallStep("las__handle_read",
                         {{"handle_id", handle["handle_id"]}, {"offset", offset}, {"length", 65536}}));
  }
  auto back = Serve("alice", steps, env, release_->registry_path());
  std::string whole;
  for (const auto& step : back.steps) whole += Structured(step)["text"].get<std::string>();
  json result = json::parse(whole);
  EXPECT_EQ(result["content"][0]["text"], text);

  auto other = Serve(
      "bob", json::array({CallStep("las__handle_read", {{"handle_id", handle["handle_id"]}})}),
      env, release_->registry_path());
  EXPECT_EQ(Structured(other.steps[0])["error"]["code"], "handle-not-found");
}

// The same large result given to the same agent again — two calls in flight at once, then
// another in a later process — names one handle, stored once (probe AJ1: each answer wrote
// its whole content again, and the handles projection counted the repeats as skipped).
TEST_F(StateE2eTest, AResultGivenToItsAgentAgainNamesTheHandleStoredOnce) {
  ASSERT_NO_FATAL_FAILURE(SignFlakyRelease());
  const json env = testing::EnvObject(release_->Environment());
  const json echo = {{"text", std::string(100000, 'r')}};
  auto run = Serve("alice",
                   json::array({{{"op", "parallelCalls"}, {"name", "flaky__echo"}, {"count", 2},
                                 {"arguments", echo}},
                                CallStep("flaky__echo", echo)}),
                   env, release_->registry_path());
  ASSERT_EQ(run.steps.size(), 2u);
  auto later = Serve("alice", json::array({CallStep("flaky__echo", echo)}), env,
                     release_->registry_path());
  ASSERT_EQ(later.steps.size(), 1u);
  std::set<std::string> named;
  for (const json& result : run.steps[0]["result"]) {
    named.insert(result["structuredContent"]["handle"]["handle_id"].get<std::string>());
  }
  named.insert(Structured(run.steps[1])["handle"]["handle_id"].get<std::string>());
  named.insert(Structured(later.steps[0])["handle"]["handle_id"].get<std::string>());
  EXPECT_EQ(named.size(), 1u) << "one handle for one owner and content";

  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"), "--kind",
                                     "HandleCreated"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(testing::Lines(replay.out).size(), 1u) << "stored once";
  auto completed = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp_.Sub("log"),
                                        "--kind", "ToolCallCompleted"});
  EXPECT_EQ(testing::Lines(completed.out).size(), 4u) << "every call completed";
}

}  // namespace
}  // namespace las
