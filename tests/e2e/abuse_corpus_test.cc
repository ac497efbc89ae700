// A client abuse corpus against the real `las serve` process over its real stdio pipes:
// each bad line gets a JSON-RPC error (or is dropped when no id can be read), stdout carries
// nothing but JSON-RPC lines, and the session goes on.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_fixture.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

TEST(AbuseCorpusTest, EveryBadLineIsAnsweredOrDroppedAndTheSessionGoesOn) {
  testing::TempDir tmp;
  std::string deep = R"({"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":)";
  deep += std::string(500, '[');
  const std::vector<std::string> lines = {
      R"({"jsonrpc":"2.0","id":"early","method":"tools/list"})",          // before initialize
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"alice"}})",
      R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})",    // second initialize
      R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"agentId":"bob"}}})",
      R"({"jsonrpc":"2.0","id":4,"method":"no/such/method"})",
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}})",
      R"({"jsonrpc":"2.0","id":6,"method":"ping",})",                     // malformed JSON
      R"({"jsonrpc":"1.0","id":7,"method":"ping"})",                      // invalid request
      R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})",                // bad id: dropped
      R"([{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"x"},7])",  // batch
      "\"just a string\"",                                                 // non-object
      "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"s\":\"\xff\"}}",  // bad UTF-8
      deep,                                                                // depth bomb
      R"({"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":")" + std::string(5 << 20, 'a') +
          R"("}})",                                                        // over the line bound
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
      R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"las__state_get","arguments":"k"}})",
      R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"las__state_get","arguments":[1]}})",
      R"({"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"las__state_get","arguments":{"key":"a","key":"b"}}})",
      R"({"method":"ping","id":0,"jsonrpc":"2.0"})",                      // id 0, any order
      R"({"jsonrpc":"2.0","id":"last","method":"tools/list"})",
  };
  {
    std::ofstream in(tmp.Sub("in.jsonl"), std::ios::binary);
    for (const auto& line : lines) in << line << "\n";
  }
  auto result = testing::RunCommand(
      {"/bin/sh", "-c",
       std::string(LAS_EXECUTABLE) + " serve --log " + tmp.Sub("log") + " < " + tmp.Sub("in.jsonl") +
           " | cat"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, json> by_id;
  for (const auto& line : testing::Lines(result.out)) {
    json message = json::parse(line, nullptr, false);
    ASSERT_FALSE(message.is_discarded()) << "stdout carries only JSON-RPC: " << line.substr(0, 200);
    ASSERT_EQ(message["jsonrpc"], "2.0");
    by_id[message["id"].dump()] = message;
  }
  auto code = [&](const std::string& id) { return by_id.at(id)["error"]["code"].get<int>(); };
  EXPECT_EQ(code(R"("early")"), -32600);
  EXPECT_TRUE(by_id.at("1").contains("result"));
  EXPECT_EQ(code("2"), -32600);
  EXPECT_EQ(code("3"), -32602) << "agentId cannot be replaced";
  EXPECT_EQ(code("4"), -32601);
  EXPECT_EQ(code("5"), -32602);
  EXPECT_EQ(code("6"), -32700);
  EXPECT_EQ(code("7"), -32600);
  EXPECT_EQ(code("9"), -32700);
  EXPECT_EQ(code(R"("deep")"), -32700);
  EXPECT_EQ(code("10"), -32600) << "an over-long line is answered when its id is readable";
  EXPECT_TRUE(by_id.at("0").contains("result"));
  EXPECT_TRUE(by_id.at(R"("last")").contains("result")) << "the session went on to the end";
  // Batches are not served; each request in one is refused by its own id (probe BC4).
  EXPECT_EQ(code("8"), -32600);
  EXPECT_EQ(by_id.at("8")["error"]["message"], "Batches are not supported: send one message per line");
  EXPECT_EQ(by_id.count("null"), 0u) << "lines without a readable id are dropped, not answered";
  // Arguments that are not one strict object: refused as such, and each refusal recorded.
  for (const char* id : {"11", "12", "13"}) {
    EXPECT_EQ(code(id), -32602) << id;
    EXPECT_EQ(by_id.at(id)["error"]["message"].get<std::string>().rfind(
                  "Arguments are not one strict JSON object within Las's bounds: ", 0),
              0u)
        << by_id.at(id).dump();
  }
  const auto denied = testing::ReplayEvents(tmp.Sub("log"), {"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 3u);
  for (const auto& event : denied) EXPECT_EQ(event["payload"]["reason"], "arguments-invalid") << event.dump();
  EXPECT_EQ(by_id.size(), 17u) << result.out.substr(0, 2000);
}

// Answers that cannot be written (stdout on a full device) make the exit status 9; the calls
// themselves ran and are in the log.
TEST(AbuseCorpusTest, AnswersThatCannotBeWrittenEndWithExitNine) {
  testing::TempDir tmp;
  {
    std::ofstream in(tmp.Sub("in.jsonl"), std::ios::binary);
    in << R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"alice"}})" << "\n"
       << R"({"jsonrpc":"2.0","id":2,"method":"ping"})" << "\n";
  }
  auto result = testing::RunCommand({"/bin/sh", "-c",
                                     std::string(LAS_EXECUTABLE) + " serve --log " + tmp.Sub("log") + " < " +
                                         tmp.Sub("in.jsonl") + " > /dev/full"});
  EXPECT_EQ(result.exit_code, 9) << result.err;
  EXPECT_NE(result.err.find("writing to standard output failed"), std::string::npos) << result.err;
  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"), "--kind", "SessionOpened"});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(testing::Lines(replay.out).size(), 1u) << "the session is in the log";
}

// A client that closed its end of stdout but keeps stdin open: the first answer that cannot
// be written ends the session at once (exit 9, SessionClosed "disconnect") instead of
// running requests whose answers could reach no one.
TEST(AbuseCorpusTest, AnswersThatCannotBeWrittenEndTheInputAtOnce) {
  testing::TempDir tmp;
  testing::ChildProcess las({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("log")});
  las.CloseStdout();
  las.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"alice"}})");
  const std::optional<int> status = las.WaitFor(std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value()) << "las serve kept reading a client it cannot answer";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 9);
  auto closed = testing::RunCommand(
      {LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"), "--kind", "SessionClosed"});
  ASSERT_EQ(closed.exit_code, 0) << closed.err;
  ASSERT_EQ(testing::Lines(closed.out).size(), 1u) << closed.out;
  EXPECT_EQ(json::parse(closed.out)["payload"]["reason"], "disconnect") << closed.out;
}

// The log's file cannot grow (a file-size limit stands in for a full disk): the calls
// acknowledged before are in the log, later ones get a generic error, stderr says why once,
// the process is not killed (SIGXFSZ) and ends with exit 9; the log still verifies.
TEST(AbuseCorpusTest, ALogThatCannotGrowRefusesCallsAndEndsWithExitNine) {
  testing::TempDir tmp;
  const std::string pad(20000, 'x');
  {
    std::ofstream in(tmp.Sub("in.jsonl"), std::ios::binary);
    in << R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"alice"}})" << "\n";
    for (int i = 1; i <= 12; ++i) {
      in << json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/call"},
                 {"params", {{"name", "las__state_set"},
                             {"arguments", {{"key", "k" + std::to_string(i)}, {"value", pad}}}}}}
                .dump()
         << "\n";
    }
  }
  auto result = testing::RunCommand(
      {"/bin/sh", "-c",
       "ulimit -f 256; exec " + std::string(LAS_EXECUTABLE) + " serve --log " + tmp.Sub("log") +
           " < " + tmp.Sub("in.jsonl")});
  EXPECT_EQ(result.exit_code, 9) << result.err;
  // One line, the command's error line, says why (probe AP3: a note said it first).
  const std::string told = "las serve: io: ";
  const size_t first = result.err.find(told);
  ASSERT_NE(first, std::string::npos) << result.err;
  EXPECT_EQ(result.err.find(told, first + 1), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("File too large", first), std::string::npos) << result.err;
  int acknowledged = 0;
  int refused = 0;
  for (const auto& line : testing::Lines(result.out)) {
    const json answer = json::parse(line);
    if (answer["id"] == 0) continue;
    if (answer.contains("result")) ++acknowledged;
    if (answer.contains("error")) ++refused;
  }
  EXPECT_GT(acknowledged, 0);
  EXPECT_GT(refused, 0) << "the limit was never reached";
  auto replay = testing::RunCommand(
      {LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"), "--kind", "StateWritten"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(testing::Lines(replay.out).size(), static_cast<size_t>(acknowledged))
      << "every acknowledged write is in the log, and no other";
}

// The log's directory moved away and another log put at its path while `las serve` runs:
// the next write is refused (nothing acknowledged that is not in the log it was opened on),
// later calls are refused, reads included, the server ends with exit 9, and neither log is
// written to by path afterwards — both still verify.
TEST(AbuseCorpusTest, ALogDirectoryReplacedWhileServingIsNeitherAckedNorDamaged) {
  testing::TempDir tmp;
  const std::string init =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"alice"}})";
  auto set = [](int id) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                {"params", {{"name", "las__state_set"},
                            {"arguments", {{"key", "k" + std::to_string(id)}, {"value", id}}}}}}
        .dump();
  };
  auto replay = [&](const std::string& dir) {
    return testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp.Sub(dir)});
  };
  {
    std::ofstream in(tmp.Sub("other.jsonl"), std::ios::binary);
    in << init << "\n" << set(1) << "\n" << set(2) << "\n";
  }
  ASSERT_EQ(testing::RunCommand({"/bin/sh", "-c",
                                 std::string(LAS_EXECUTABLE) + " serve --log " + tmp.Sub("other") +
                                     " < " + tmp.Sub("other.jsonl") + " > /dev/null"})
                .exit_code,
            0);
  const size_t other_events = testing::Lines(replay("other").out).size();
  ASSERT_GT(other_events, 0u);

  testing::ChildProcess las({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("log")});
  las.WriteLine(init);
  ASSERT_TRUE(las.ReadLine().has_value());
  las.WriteLine(set(1));
  auto first = las.ReadLine();
  ASSERT_TRUE(first.has_value());
  EXPECT_NE(first->find("\"result\""), std::string::npos) << *first;

  std::filesystem::rename(tmp.Sub("log"), tmp.Sub("log.moved"));
  std::filesystem::copy(tmp.Sub("other"), tmp.Sub("log"), std::filesystem::copy_options::recursive);
  las.WriteLine(set(2));
  auto second = las.ReadLine();
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->find("\"error\""), std::string::npos) << "acknowledged a lost write: " << *second;
  // The refused write was folded into the live state when it was written; no read may show
  // it (probe N1). The server ends by itself, stdin still open, so that a restart reopens
  // the log (probe N6): a read is refused or never answered.
  las.WriteLine(json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"},
                     {"params", {{"name", "las__state_get"}, {"arguments", {{"key", "k2"}}}}}}
                    .dump());
  if (auto read = las.ReadLine(std::chrono::seconds(10))) {
    EXPECT_EQ(read->find("\"version\""), std::string::npos) << "a refused write was read: " << *read;
  }
  const std::optional<int> status = las.WaitFor(std::chrono::seconds(20));
  ASSERT_TRUE(status.has_value()) << "las serve went on serving on a failed log";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 9);

  auto now_at_path = replay("log");
  EXPECT_EQ(now_at_path.exit_code, 0) << now_at_path.err;
  EXPECT_EQ(testing::Lines(now_at_path.out).size(), other_events) << "the other log is untouched";
  auto moved = testing::RunCommand(
      {LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log.moved"), "--kind", "StateWritten"});
  EXPECT_EQ(moved.exit_code, 0) << moved.err;
  // The acknowledged write is there; the refused one may be too (written, never
  // acknowledged: the state a crash between write and answer leaves).
  const auto written = testing::Lines(moved.out);
  ASSERT_GE(written.size(), 1u);
  EXPECT_EQ(json::parse(written[0])["payload"]["key"], "k1");
}

}  // namespace
}  // namespace las
