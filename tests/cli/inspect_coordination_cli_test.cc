// `las inspect state|messages|handles` on a log written by a real `las serve` session
// (stdin from a file, no surfaces), through the real executable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/log/raw_db.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;
using testing::CommandResult;

class InspectCoordinationCliTest : public ::testing::Test {
 protected:
  // `las ARGS` with private HOME and XDG dirs and no release configured.
  CommandResult Las(std::vector<std::string> args, const std::string& stdin_file = "") const {
    std::string command = "exec /usr/bin/env HOME='" + tmp_.Sub("home") + "' XDG_STATE_HOME='" +
                          tmp_.Sub("state") + "' XDG_CONFIG_HOME='" + tmp_.Sub("config") +
                          "' XDG_RUNTIME_DIR= LAS_RELEASE_MANIFEST= LAS_TRUST_STORE= '" +
                          std::string(LAS_EXECUTABLE) + "'";
    for (const auto& arg : args) command += " '" + arg + "'";
    if (!stdin_file.empty()) command += " < '" + stdin_file + "'";
    return testing::RunCommand({"/usr/bin/timeout", "60", "/bin/sh", "-c", command});
  }

  // One `las serve` session of `agent` that sends `calls` (tools/call params, JSON text) in
  // order; every answer must be a success.
  void Session(const std::string& agent, const std::vector<std::string>& calls) {
    const std::string path = tmp_.Sub("session-" + std::to_string(sessions_++) + ".jsonl");
    std::ofstream lines(path);
    lines << json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                  {"params", {{"protocolVersion", "2024-11-05"}, {"capabilities", json::object()},
                              {"clientInfo", {{"name", "t"}, {"version", "1"}}},
                              {"agentId", agent}}}}
                 .dump()
          << "\n";
    int id = 1;
    for (const auto& params : calls) {
      lines << R"({"jsonrpc":"2.0","id":)" << id++ << R"(,"method":"tools/call","params":)"
            << params << "}\n";
    }
    lines.close();
    std::vector<std::string> serve = {"serve", "--log", log_dir()};
    serve.insert(serve.end(), serve_flags_.begin(), serve_flags_.end());
    auto run = Las(serve, path);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (const auto& line : testing::Lines(run.out)) {
      const json answer = json::parse(line);
      ASSERT_FALSE(answer.contains("error")) << line;
      ASSERT_FALSE(answer["result"].value("isError", false)) << line;
      answers_.push_back(answer);
    }
  }

  static std::string Call(const std::string& tool, json arguments) {
    return json{{"name", tool}, {"arguments", std::move(arguments)}}.dump();
  }

  std::string log_dir() const { return tmp_.Sub("log"); }
  testing::TempDir tmp_;
  std::vector<json> answers_;
  int sessions_ = 0;
  std::vector<std::string> serve_flags_;  // added to every Session's `las serve`
};

TEST_F(InspectCoordinationCliTest, StateShowsEveryKeysCurrentVersionAndItsExactValue) {
  const std::string big = "123456789012345678901234567890";
  Session("alice", {Call("las__state_set", {{"key", "plan"}, {"scope", "blackboard"},
                                            {"value", {{"step", 1}}}}),
                    Call("las__state_set", {{"key", "plan"}, {"scope", "blackboard"},
                                            {"value", {{"step", 2}}}}),
                    Call("las__state_set", {{"key", "mine"}, {"value", "private\x1b[31m"}})});
  // A number beyond 64 bits, as text (a json value would make it a double).
  Session("bob", {R"({"name":"las__state_set","arguments":{"key":"n","scope":"blackboard",)"
                  R"("value":{"big":)" + big + R"(,"s":"\"value\": <discarded>"}}})"});

  auto table = Las({"inspect", "state", "--log", log_dir()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto rows = testing::Lines(table.out);
  ASSERT_EQ(rows.size(), 4u) << table.out;
  EXPECT_EQ(rows[0].rfind("SPACE", 0), 0u);
  EXPECT_NE(table.out.find("private:alice"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos);  // values are not in the table

  auto with_values = Las({"inspect", "state", "--log", log_dir(), "--json", "--values"});
  ASSERT_EQ(with_values.exit_code, 0) << with_values.err;
  EXPECT_NE(with_values.out.find("\"big\":" + big), std::string::npos) << with_values.out;
  const json state = json::parse(with_values.out);
  ASSERT_EQ(state["blackboard"].size(), 2u);
  const json& n = state["blackboard"][0];
  EXPECT_EQ(n["key"], "n");
  EXPECT_EQ(n["author_agent_id"], "bob");
  EXPECT_EQ(n["value"]["s"], "\"value\": <discarded>");
  const json& plan = state["blackboard"][1];
  EXPECT_EQ(plan["version"], 2);
  EXPECT_EQ(plan["value"], json({{"step", 2}}));
  EXPECT_EQ(plan["value_sha256"].get<std::string>().size(), 64u);
  ASSERT_EQ(state["private"].size(), 1u);
  EXPECT_EQ(state["private"][0]["agent_id"], "alice");
  EXPECT_EQ(state["private"][0]["keys"][0]["value"], "private\x1b[31m");
  EXPECT_EQ(state["skipped_events"], 0);

  const json without = json::parse(Las({"inspect", "state", "--log", log_dir(), "--json"}).out);
  EXPECT_FALSE(without["blackboard"][0].contains("value"));
  EXPECT_EQ(Las({"inspect", "state", "--log", log_dir(), "--values"}).exit_code, 2);
}

TEST_F(InspectCoordinationCliTest, MessagesShowStateNowAndHandlesTheirOwners) {
  Session("alice", {Call("las__message_send", {{"to", "bob"}, {"subject", "first"},
                                               {"body", {{"x", 1}}}}),
                    Call("las__message_send", {{"to", "carol"}, {"subject", "hi\x1b[2J"},
                                               {"body", "b"}}),
                    Call("las__state_set", {{"key", "large"}, {"scope", "blackboard"},
                                            {"value", std::string(20000, 'v')}})});
  const std::string first_id = answers_[1]["result"]["structuredContent"]["message_id"];
  Session("bob", {Call("las__message_read", {{"message_id", first_id}}),
                  Call("las__state_get", {{"key", "large"}, {"scope", "blackboard"}})});

  const json all = json::parse(Las({"inspect", "messages", "--log", log_dir(), "--json"}).out);
  ASSERT_EQ(all["messages"].size(), 2u) << all.dump();
  EXPECT_EQ(all["messages"][0]["message_id"], first_id);
  EXPECT_EQ(all["messages"][0]["state"], "read");
  EXPECT_EQ(all["messages"][1]["to_agent_id"], "carol");
  EXPECT_EQ(all["messages"][1]["state"], "unread");
  EXPECT_FALSE(all["messages"][0].contains("body"));
  const json carol = json::parse(
      Las({"inspect", "messages", "--log", log_dir(), "--agent", "carol", "--json"}).out);
  ASSERT_EQ(carol["messages"].size(), 1u);
  auto table = Las({"inspect", "messages", "--log", log_dir()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << "a subject cannot move the cursor";
  EXPECT_EQ(Las({"inspect", "messages", "--log", log_dir(), "--agent", ""}).exit_code, 2);
  // Ids no session can bind are refused as the other --agent filters refuse them (CY6).
  for (const std::string& impossible : std::vector<std::string>{" bob", std::string(300, 'a'), "\u200bbob"}) {
    EXPECT_EQ(Las({"inspect", "messages", "--log", log_dir(), "--agent", impossible}).exit_code, 2)
        << impossible;
  }
  // A deferral shows while it holds, and not on the message completed after it (CA3).
  const std::string second_id = answers_[2]["result"]["structuredContent"]["message_id"];
  Session("carol", {Call("las__message_defer", {{"message_id", second_id}, {"seconds", 600}})});
  json deferred = json::parse(
      Las({"inspect", "messages", "--log", log_dir(), "--agent", "carol", "--json"}).out);
  EXPECT_EQ(deferred["messages"][0]["state"], "deferred");
  EXPECT_GT(deferred["messages"][0]["deferred_until_micros"].get<int64_t>(), 0);
  Session("carol", {Call("las__message_complete", {{"message_id", second_id}})});
  json completed = json::parse(
      Las({"inspect", "messages", "--log", log_dir(), "--agent", "carol", "--json"}).out);
  EXPECT_EQ(completed["messages"][0]["state"], "completed");
  EXPECT_EQ(completed["messages"][0]["deferred_until_micros"], 0);

  // bob was handed the 20,000-byte value as a handle.
  const json handles = json::parse(Las({"inspect", "handles", "--log", log_dir(), "--json"}).out);
  ASSERT_EQ(handles["handles"].size(), 1u) << handles.dump();
  EXPECT_EQ(handles["handles"][0]["owner_agent_id"], "bob");
  EXPECT_GT(handles["handles"][0]["size"].get<uint64_t>(), 20000u);
  EXPECT_FALSE(handles["handles"][0].contains("content"));
}

TEST_F(InspectCoordinationCliTest, AnEmptyLogShowsEmptyViewsAndNoLogIsNotFound) {
  Session("alice", {});
  EXPECT_EQ(json::parse(Las({"inspect", "state", "--log", log_dir(), "--json"}).out)["blackboard"],
            json::array());
  EXPECT_EQ(json::parse(Las({"inspect", "handles", "--log", log_dir(), "--json"}).out)["handles"],
            json::array());
  auto missing = Las({"inspect", "messages", "--log", tmp_.Sub("nothing-here")});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("las inspect messages"), std::string::npos) << missing.err;
}

// A view starts from the newest snapshot sealed with this user's key, as a server's start
// does, and verifies the events after it; `las replay` verifies every event. So damage
// before the snapshot shows in replay and, once the key is gone, in the view too.
TEST_F(InspectCoordinationCliTest, ViewsStartFromTheNewestSnapshotWhileReplayVerifiesAll) {
  serve_flags_ = {"--snapshot-every", "1"};
  Session("alice", {Call("las__state_set", {{"key", "plan"}, {"scope", "blackboard"},
                                            {"value", {{"step", 1}}}}),
                    Call("las__state_set", {{"key", "plan"}, {"scope", "blackboard"},
                                            {"value", {{"step", 2}}}})});
  Session("bob", {Call("las__state_set", {{"key", "note"}, {"scope", "blackboard"},
                                          {"value", "after the first session"}})});
  const std::string key_file = tmp_.Sub("config") + "/las/snapshot.key";
  ASSERT_TRUE(std::filesystem::exists(key_file)) << "the server made its snapshot key";
  const std::vector<std::string> view = {"inspect", "state", "--log", log_dir(), "--json",
                                         "--values"};
  const auto before = Las(view);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  ASSERT_EQ(json::parse(before.out)["blackboard"].size(), 2u) << before.out;
  {
    testing::RawDb db(log_dir());
    std::string value = db.Get("events", testing::SequenceKey(2));
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x10);
    db.Put("events", testing::SequenceKey(2), value);
  }

  const auto from_snapshot = Las(view);
  EXPECT_EQ(from_snapshot.exit_code, 0) << from_snapshot.err;
  EXPECT_EQ(from_snapshot.out, before.out);
  EXPECT_EQ(Las({"grants", "--log", log_dir()}).exit_code, 0);
  EXPECT_EQ(Las({"onboarding", "status", "--log", log_dir()}).exit_code, 0);
  // An operator's change folds as the server's start does, from the snapshot.
  const auto granted = Las({"grant", "carol", "--all", "--log", log_dir()});
  EXPECT_EQ(granted.exit_code, 0) << granted.err;
  const auto replay = Las({"replay", "--log", log_dir(), "--summary"});
  EXPECT_EQ(replay.exit_code, 3);
  EXPECT_NE(replay.err.find("event 2"), std::string::npos) << replay.err;

  std::filesystem::remove(key_file);
  const auto full_fold = Las(view);
  EXPECT_EQ(full_fold.exit_code, 3);
  EXPECT_NE(full_fold.err.find("event 2"), std::string::npos) << full_fold.err;
  EXPECT_EQ(full_fold.out, "");
}

}  // namespace
}  // namespace las
