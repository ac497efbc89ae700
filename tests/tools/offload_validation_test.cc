// A child tool's large arguments are checked against its schema off the loop
// (GatewayOptions::offload_validation_bytes, run_off_loop): through the real Gateway, a
// real log and real children (tests/transport/children/mcp_child.py as surface "kid", whose
// tools take any object; examples/surfaces/stand_in.py as "echo", whose schemas refuse
// unknown keys), signed and federated as `las serve` does, with one McpEndpoint per
// session. A runner that holds each job until the test lets it run shows what happens on
// the loop meanwhile, without timing.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "log/event_json.h"
#include "log/event_log.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/forwarding_log.h"
#include "tests/support/held_syncs_log.h"
#include "tests/support/temp_dir.h"
#include "tools/call_guard.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/mcp_endpoint.h"
#include "tools/registry.h"
#include "tools/worker_thread.h"
#include "transport/mcp_client.h"
#include "trust/digest.h"

namespace las::tools {
namespace {

using nlohmann::json;

constexpr size_t kThreshold = 1024;
// echo__echo's refusal of a "pad" argument (its schema has additionalProperties: false).
constexpr const char* kPadRefused =
    "the arguments do not match the input schema: \"/pad\" fails additionalProperties";

// Arguments for kid__echo (answers `text`) of more than kThreshold bytes.
std::string LargeEcho(const std::string& text) {
  return json{{"text", text}, {"pad", std::string(4 * kThreshold, 'x')}}.dump();
}

// A log whose appends fail once `failing` is set, as a disk that went away.
class FailingAppendsLog final : public testing::ForwardingLog {
 public:
  using ForwardingLog::ForwardingLog;
  bool failing = false;
  Result<log::AppendedRange> Append(std::vector<log::EventDraft> drafts,
                                    log::Durability durability) override {
    if (failing) return IoError("the disk went away");
    return ForwardingLog::Append(std::move(drafts), durability);
  }
  Result<log::AppendedRange> AppendInPlace(std::vector<log::EventDraft>& drafts,
                                           log::Durability durability) override {
    if (failing) return IoError("the disk went away");
    return ForwardingLog::AppendInPlace(drafts, durability);
  }
};

// An OffLoopRunner that keeps every job until the test runs it.
struct HeldJobs {
  std::vector<std::function<void()>> jobs;
  OffLoopRunner Runner() {
    return [this](std::function<void()> job) { jobs.push_back(std::move(job)); };
  }
  // Runs the first job held, here (a job runs once).
  void RunFirst() {
    std::function<void()> job = std::move(jobs.front());
    jobs.erase(jobs.begin());
    job();
  }
};

class OffloadValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    const std::string child = release_->CopyIntoWorkspace(
        std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py", "mcp_child.py");
    release_->AddSurface("kid", {"/usr/bin/python3", child});
    const std::string stand_in = release_->CopyIntoWorkspace(
        std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py", "stand_in.py");
    release_->AddSurface("echo", {"/usr/bin/python3", stand_in, "echo"});
    ASSERT_FALSE(HasFailure());
    release_->Sign(1);
  }

  void TearDown() override { Close(); }

  // The server, with `run_off_loop` (null: every check inline) and kThreshold; `adjust`
  // may change the gateway's other options.
  void Open(OffLoopRunner run_off_loop, std::function<void(GatewayOptions&)> adjust = nullptr) {
    auto log = log::EventLog::Open(tmp_.Sub("log"));
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(*log);
    if (hold_syncs_) {
      auto held = std::make_unique<testing::HeldSyncsLog>(std::move(log_));
      held_syncs_ = held.get();
      log_ = std::move(held);
    } else if (may_fail_appends_) {
      auto failing = std::make_unique<FailingAppendsLog>(std::move(log_));
      failing_appends_ = failing.get();
      log_ = std::move(failing);
    }
    live_ = std::make_unique<LiveProjections>(*log_);
    ASSERT_TRUE(live_->CatchUp().ok());
    appender_ = std::make_unique<LoopAppender>(io_, *log_, live_.get());
    if (sync_off_loop_always_) appender_->SyncOffLoopAlways();
    FederationOptions federation;
    auto registry = LoadRegistry(release_->registry_path());
    ASSERT_TRUE(registry.ok()) << registry.status().ToString();
    federation.registry = *registry;
    for (const std::string& entry : release_->Environment()) {
      const size_t eq = entry.find('=');
      federation.environment[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    federation.quiet = true;
    federation_ = std::make_unique<Federation>(io_, *log_, federation);
    bool ready = false;
    federation_->Start([&] { ready = true; });
    RunUntil([&] { return ready; });
    ASSERT_NE(federation_->ClientFor("kid"), nullptr);
    ASSERT_NE(federation_->ClientFor("echo"), nullptr);
    GatewayOptions gateway;
    gateway.new_call_id = [this] { return "call-" + std::to_string(++ids_); };
    gateway.offload_validation_bytes = kThreshold;
    gateway.run_off_loop = std::move(run_off_loop);
    if (adjust) adjust(gateway);
    gateway_ = std::make_unique<Gateway>(*appender_, *federation_, gateway);
  }

  void Close() {
    if (!log_) return;
    if (gateway_) {
      // What a test left held or in flight finishes first: the children's answers must not
      // come back to a gateway that is gone.
      // (Checks are handed over one at a time: each verdict back lets the next one go.)
      RunUntil([&] {
        for (auto& job : std::exchange(held_.jobs, {})) job();
        return gateway_->calls_in_flight() == 0;
      });
    }
    if (held_syncs_ != nullptr) held_syncs_->Release();
    sessions_.clear();
    gateway_.reset();
    bool down = false;
    federation_->Shutdown([&] { down = true; });
    RunUntil([&] { return down; });
    federation_.reset();
    appender_.reset();
    live_.reset();
    log_.reset();
  }

  // Sends a tools/call on `session` (opened on first use); returns its request id.
  int Send(const std::string& session, const std::string& tool, const std::string& arguments) {
    return SendAs(session, ++SessionOf(session).next_id, tool, arguments);
  }
  // Sends a tools/call with the request id `id`, which may be one already in flight.
  int SendAs(const std::string& session, int id, const std::string& tool,
             const std::string& arguments) {
    Session& s = SessionOf(session);
    s.endpoint->OnLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"method":"tools/call","params":{"name":")" + tool +
                       R"(","arguments":)" + arguments + "}}");
    return id;
  }
  void Cancel(const std::string& session, int id) {
    SessionOf(session).endpoint->OnLine(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
        std::to_string(id) + R"(,"reason":"test"}})");
  }
  // The response to request `id` on `session`, once there is one (null: none came).
  json Await(const std::string& session, int id) {
    Session& s = SessionOf(session);
    RunUntil([&] { return s.responses.count(id) != 0; });
    return s.responses.count(id) != 0 ? json::parse(s.responses[id]) : json();
  }
  bool Answered(const std::string& session, int id) {
    return SessionOf(session).responses.count(id) != 0;
  }

  // Every event of `kind` in the log, as `las replay` prints them.
  std::vector<json> Events(const std::string& kind) {
    std::vector<json> found;
    auto cursor = log_->Read(1);
    EXPECT_TRUE(cursor.ok());
    if (!cursor.ok()) return found;
    while (true) {
      auto next = (*cursor)->Next();
      EXPECT_TRUE(next.ok());
      if (!next.ok() || !*next) break;
      json event = json::parse(log::EventToJson((*cursor)->current()));
      if (event["kind"] == kind) found.push_back(std::move(event));
    }
    return found;
  }
  // The events of `kind` once there are `count` of them (deferred appends are written on
  // the loop turn after the answer).
  std::vector<json> AwaitEvents(const std::string& kind, size_t count) {
    RunUntil([&] { return Events(kind).size() >= count; });
    return Events(kind);
  }

  // The one ToolCallDenied recorded, which must carry `reason`.
  json OnlyDenial(std::string_view reason) {
    auto denied = AwaitEvents("ToolCallDenied", 1);
    EXPECT_EQ(denied.size(), 1u);
    if (denied.empty()) return json::object();
    EXPECT_EQ(denied[0]["payload"]["reason"], reason);
    return denied[0];
  }

  // The error of `reply`, which must be one.
  static json ErrorOf(const json& reply) {
    EXPECT_TRUE(reply.contains("error")) << reply.dump();
    return reply.value("error", json::object());
  }

  template <typename Done>
  void RunUntil(Done done) {
    for (int i = 0; i < 600 && !done(); ++i) io_.run_one_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(done()) << "timed out waiting on the loop";
  }
  // Runs every handler that is ready, without waiting for more.
  void RunReady() { io_.poll(); }

  struct Session {
    std::unique_ptr<McpEndpoint> endpoint;
    std::map<int, std::string> responses;
    int next_id = 100;
  };
  Session& SessionOf(const std::string& name) {
    auto it = sessions_.find(name);
    if (it != sessions_.end()) return *it->second;
    auto session = std::make_unique<Session>();
    Session* raw = session.get();
    EndpointOptions options;
    options.default_agent_id = "agent-" + name;
    options.new_session_id = [name] { return "session-" + name; };
    raw->endpoint = std::make_unique<McpEndpoint>(options, *gateway_, [raw](std::string line) {
      auto response = json::parse(line, nullptr, false);
      if (response.is_object() && response["id"].is_number_integer()) {
        raw->responses[response["id"].get<int>()] = line;
      }
    });
    raw->endpoint->OnLine(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05",)"
        R"("capabilities":{},"clientInfo":{"name":"test","version":"1"}}})");
    sessions_.emplace(name, std::move(session));
    return *raw;
  }
  size_t EndpointInFlight(const std::string& session) {
    return SessionOf(session).endpoint->in_flight();
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
  HeldJobs held_;
  bool hold_syncs_ = false;  // set before Open: the log's syncs off the loop stall
  bool sync_off_loop_always_ = false;  // set before Open: as ServerCore with a call timeout
  testing::HeldSyncsLog* held_syncs_ = nullptr;
  bool may_fail_appends_ = false;  // set before Open: failing_appends_ can make appends fail
  FailingAppendsLog* failing_appends_ = nullptr;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  int ids_ = 0;
  std::unique_ptr<log::EventLog> log_;
  std::unique_ptr<LiveProjections> live_;
  std::unique_ptr<LoopAppender> appender_;
  std::unique_ptr<Federation> federation_;
  std::unique_ptr<Gateway> gateway_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
};

std::string TextOf(const json& response) {
  return response["result"]["content"][0]["text"].get<std::string>();
}

TEST_F(OffloadValidationTest, AnotherSessionsSmallCallCompletesWhileALargeOneIsChecked) {
  Open(held_.Runner());
  const int large = Send("a", "kid__echo", LargeEcho("large"));
  ASSERT_EQ(held_.jobs.size(), 1u) << "a large argument's check is handed off";
  const int small = Send("b", "kid__echo", R"({"text":"small"})");
  EXPECT_EQ(held_.jobs.size(), 1u) << "a small argument is checked inline";
  const json answer = Await("b", small);
  EXPECT_EQ(TextOf(answer), "small") << answer.dump();
  EXPECT_FALSE(Answered("a", large));
  EXPECT_EQ(EndpointInFlight("a"), 1u) << "the held call stays in flight for its session";
  EXPECT_EQ(gateway_->calls_in_flight(), 1u);
  EXPECT_EQ(Events("ToolCallRequested").size(), 1u) << "only the small call is requested";

  held_.RunFirst();  // the check, here on the loop's thread; its verdict is posted back
  const json late = Await("a", large);
  EXPECT_EQ(TextOf(late), "large") << late.dump();
  auto requested = AwaitEvents("ToolCallRequested", 2);
  ASSERT_EQ(requested.size(), 2u);
  EXPECT_EQ(requested[1]["payload"]["tool"], "echo");
  EXPECT_EQ(requested[1]["payload"]["surface"], "kid");
  EXPECT_EQ(requested[1]["payload"]["request_id"], std::to_string(large));
  EXPECT_EQ(requested[1]["payload"]["arguments_size"], LargeEcho("large").size());
  EXPECT_EQ(requested[1]["payload"]["arguments_truncated"], true);
  auto completed = AwaitEvents("ToolCallCompleted", 2);
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[1]["payload"]["call_id"], requested[1]["payload"]["call_id"]);
  EXPECT_EQ(completed[1]["payload"]["outcome"], "Ok");
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
  EXPECT_EQ(EndpointInFlight("a"), 0u);
}

// Once its child answered, a call is no longer the child's: a restart of the surface ends
// and destroys the old client while the large result is read off the loop, and a client's
// cancel then reached that freed client (probe CB1: SIGSEGV in McpClient::Cancel; this
// test crashed 3 times in 3 on the debug build before the fix).
TEST_F(OffloadValidationTest, ACancelWhileAResultIsReadNeverReachesARetiredClient) {
  Open(held_.Runner());
  const pid_t first = federation_->ClientFor("kid")->pid();
  const std::string text(4 * kThreshold, 'r');
  const int large = Send("a", "kid__echo", json{{"text", text}}.dump());
  held_.RunFirst();  // its argument's check
  RunUntil([&] { return !held_.jobs.empty(); });
  ASSERT_EQ(held_.jobs.size(), 1u) << "its large result's reading, held";
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  RunUntil([&] {
    transport::McpClient* now = federation_->ServingClientFor("kid");
    return now != nullptr && now->pid() != first;
  });
  ASSERT_NE(federation_->ServingClientFor("kid"), nullptr) << "the surface started again";
  RunReady();  // the old client's destruction, posted
  Cancel("a", large);  // too late to stop the call: it ends, answered (probe CJ1)
  held_.RunFirst();
  RunUntil([&] { return gateway_->calls_in_flight() == 0; });
  auto completed = AwaitEvents("ToolCallCompleted", 1);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok") << "the child answered before the cancel";
  EXPECT_EQ(TextOf(Await("b", Send("b", "kid__echo", R"({"text":"after"})"))), "after");
}

// A cancel that comes after the child answered stops nothing: the call happened and is
// recorded Ok with its result, so the client is given that result — MCP lets a cancel race
// the response — rather than nothing while the ledger says it was given one (probe CJ1).
// A cancel that does stop a call still gets no response (the tests above and in
// tests/e2e/daemon_test.cc).
TEST_F(OffloadValidationTest, ACancelAfterTheChildAnsweredIsAnsweredAsTheLedgerSays) {
  Open(held_.Runner());
  const std::string text(4 * kThreshold, 'r');
  const int large = Send("a", "kid__echo", json{{"text", text}}.dump());
  held_.RunFirst();  // its argument's check
  RunUntil([&] { return !held_.jobs.empty(); });
  ASSERT_EQ(held_.jobs.size(), 1u) << "the child answered: its result's reading, held";
  Cancel("a", large);
  held_.RunFirst();
  EXPECT_EQ(TextOf(Await("a", large)), text);
  auto completed = AwaitEvents("ToolCallCompleted", 1);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok");
  EXPECT_EQ(EndpointInFlight("a"), 0u);
}

// A call its client cancelled gets no response, also when its completion cannot be
// recorded: "Tool call failed" went out in its place (probe CN1).
TEST_F(OffloadValidationTest, ACancelledCallWhoseRecordFailsStillGetsNoResponse) {
  may_fail_appends_ = true;
  Open(nullptr);
  const int hung = Send("a", "kid__hang", "{}");
  RunUntil([&] { return gateway_->calls_in_flight() == 1 && !Events("ToolCallRequested").empty(); });
  failing_appends_->failing = true;
  Cancel("a", hung);
  RunUntil([&] { return EndpointInFlight("a") == 0; });
  RunReady();
  EXPECT_FALSE(Answered("a", hung)) << SessionOf("a").responses[hung];
  failing_appends_->failing = false;  // lets the fixture's end go as usual
}

// A small argument whose check could cost many subschema evaluations goes off the loop
// too (GatewayOptions::offload_validation_evaluations): a schema that costs thousands per
// value made 2 KB of arguments hold the loop for 18 s (probe BY1).
TEST_F(OffloadValidationTest, ASmallButCostlyArgumentIsCheckedOffTheLoop) {
  Open(held_.Runner(), [](GatewayOptions& g) { g.offload_validation_evaluations = 10; });
  const std::string costly = R"({"text":"costly","n":[1,2,3,4,5,6,7,8,9,10,11,12]})";
  ASSERT_LT(costly.size(), kThreshold);
  const int id = Send("a", "kid__echo", costly);
  EXPECT_EQ(held_.jobs.size(), 1u) << "its check is handed off";
  const int small = Send("b", "kid__echo", R"({"text":"small"})");
  EXPECT_EQ(held_.jobs.size(), 1u) << "a cheap argument is checked inline";
  EXPECT_EQ(TextOf(Await("b", small)), "small");
  EXPECT_FALSE(Answered("a", id));
  held_.RunFirst();
  EXPECT_EQ(TextOf(Await("a", id)), "costly");
}

// A large result is read (parsed, scanned for credentials) off the loop too: another
// session's call is answered meanwhile, and the large one once its reading is back.
TEST_F(OffloadValidationTest, ALargeResultIsReadOffTheLoop) {
  Open(held_.Runner());
  const std::string text(4 * kThreshold, 'r');
  const int large = Send("a", "kid__echo", json{{"text", text}}.dump());
  ASSERT_EQ(held_.jobs.size(), 1u) << "its large argument's check";
  held_.RunFirst();
  RunUntil([&] { return !held_.jobs.empty(); });
  ASSERT_EQ(held_.jobs.size(), 1u) << "its large result's reading";
  EXPECT_EQ(Events("ToolCallCompleted").size(), 0u);
  const json small = Await("b", Send("b", "kid__echo", R"({"text":"small"})"));
  EXPECT_EQ(TextOf(small), "small") << small.dump();
  EXPECT_FALSE(Answered("a", large));
  EXPECT_EQ(gateway_->calls_in_flight(), 1u);

  held_.RunFirst();
  const json answer = Await("a", large);
  EXPECT_EQ(TextOf(answer), text);
  auto completed = AwaitEvents("ToolCallCompleted", 2);
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[1]["payload"]["outcome"], "Ok");
  EXPECT_GT(completed[1]["payload"]["result_size"].get<size_t>(), text.size());
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
}

// A result is recorded bounded (GatewayOptions::recorded_bytes, 4096), with its full size;
// a small one whole (issue 4: "arguments and results bounded").
TEST_F(OffloadValidationTest, ACompletedCallRecordsItsResultBoundedWithItsFullSize) {
  Open(nullptr);  // every check inline
  const std::string text(10'000, 'r');
  const json large = Await("a", Send("a", "kid__echo", json{{"text", text}}.dump()));
  ASSERT_EQ(TextOf(large), text);
  const json small = Await("a", Send("a", "kid__echo", R"({"text":"small"})"));
  ASSERT_EQ(TextOf(small), "small");
  auto completed = AwaitEvents("ToolCallCompleted", 2);
  ASSERT_EQ(completed.size(), 2u);
  const json& bounded = completed[0]["payload"];
  // The child's own text of the result: the 10,000 characters and its few members.
  EXPECT_GT(bounded["result_size"].get<uint64_t>(), text.size()) << bounded.dump();
  EXPECT_LT(bounded["result_size"].get<uint64_t>(), text.size() + 200);
  EXPECT_EQ(bounded["result_truncated"], true);
  EXPECT_LE(bounded["result"].get<std::string>().size(), 4096u);
  EXPECT_NE(bounded["result"].get<std::string>().find("rrrr"), std::string::npos);
  const json& whole = completed[1]["payload"];
  EXPECT_EQ(whole["result_truncated"], false) << whole.dump();
  EXPECT_EQ(json::parse(whole["result"].get<std::string>()), small["result"]);
  EXPECT_EQ(whole["result_size"], whole["result"].get<std::string>().size());
}

TEST_F(OffloadValidationTest, ALargeArgumentTheSchemaRefusesIsDeniedWithItsDetail) {
  Open(held_.Runner());
  const std::string arguments =
      json{{"message", "hi"}, {"pad", std::string(4 * kThreshold, 'x')}}.dump();
  const int id = Send("a", "echo__echo", arguments);
  ASSERT_EQ(held_.jobs.size(), 1u);
  RunReady();
  EXPECT_FALSE(Answered("a", id));
  held_.RunFirst();
  const json refused = Await("a", id);
  EXPECT_EQ(ErrorOf(refused)["code"], kCallRefused);
  EXPECT_EQ(refused["error"]["data"]["detail"], kPadRefused)
      << refused.dump();
  auto denied = AwaitEvents("ToolCallDenied", 1);
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["surface"], "echo");
  EXPECT_EQ(denied[0]["payload"]["tool"], "echo");
  EXPECT_EQ(denied[0]["payload"]["reason"], "arguments-schema-violation");
  EXPECT_EQ(denied[0]["payload"]["detail"], refused["error"]["data"]["detail"]);
  EXPECT_TRUE(Events("ToolCallRequested").empty());
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
}

// The same refusal inline (no runner): offloading changes where the check runs, not what
// the client and the log get.
TEST_F(OffloadValidationTest, WithoutARunnerTheSameRefusalIsMadeInline) {
  Open(nullptr);
  const std::string arguments =
      json{{"message", "hi"}, {"pad", std::string(4 * kThreshold, 'x')}}.dump();
  const json refused = Await("a", Send("a", "echo__echo", arguments));
  EXPECT_EQ(ErrorOf(refused)["data"]["detail"], kPadRefused);
  OnlyDenial("arguments-schema-violation");
}

// The message says where the arguments failed too, which most clients show alone (probe
// IJ2; its bound: tests/tools/refusal_detail_test.cc).
TEST_F(OffloadValidationTest, TheRefusalsMessageSaysWhereTheArgumentsFailed) {
  Open(nullptr);
  const json one = Await("a", Send("a", "echo__echo", json{{"message", 5}}.dump()));
  EXPECT_EQ(ErrorOf(one)["message"], "Arguments do not match the tool's input schema: \"/message\" fails type");
}

// notifications/cancelled while the check runs: the call never reaches the child (no
// ToolCallRequested), is recorded denied "cancelled", and gets no response; the session
// goes on.
TEST_F(OffloadValidationTest, ACallCancelledDuringItsCheckNeverReachesTheChild) {
  Open(held_.Runner());
  const int id = Send("a", "kid__echo", LargeEcho("cancelled"));
  ASSERT_EQ(held_.jobs.size(), 1u);
  Cancel("a", id);
  held_.RunFirst();
  RunUntil([&] { return gateway_->calls_in_flight() == 0 && EndpointInFlight("a") == 0; });
  const json denied = OnlyDenial("cancelled");
  EXPECT_EQ(denied["payload"]["tool"], "echo");
  EXPECT_EQ(denied["payload"]["request_id"], std::to_string(id)) << "tied to the client's request";
  EXPECT_TRUE(Events("ToolCallRequested").empty()) << "the child was never asked";
  EXPECT_FALSE(Answered("a", id)) << "MCP: a cancelled request gets no response";

  const json next = Await("a", Send("a", "kid__echo", R"({"text":"next"})"));
  EXPECT_EQ(TextOf(next), "next") << next.dump();
}

// JSON-RPC forbids reusing a request id in flight; a client that does it anyway gets each
// call run, and a cancellation of that id reaches every call under it (the endpoint sends
// none of their answers, so none of them may go on unnoticed to the child).
TEST_F(OffloadValidationTest, ACancellationReachesEveryCallUnderAReusedRequestId) {
  Open(held_.Runner());
  SendAs("a", 7, "kid__echo", LargeEcho("first"));
  SendAs("a", 7, "kid__echo", LargeEcho("second"));
  ASSERT_EQ(held_.jobs.size(), 1u) << "one check at a time: the second waits";
  Cancel("a", 7);
  held_.RunFirst();
  RunUntil([&] { return gateway_->calls_in_flight() == 0 && EndpointInFlight("a") == 0; });
  auto denied = AwaitEvents("ToolCallDenied", 2);
  ASSERT_EQ(denied.size(), 2u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "cancelled");
  EXPECT_EQ(denied[1]["payload"]["reason"], "cancelled");
  EXPECT_TRUE(Events("ToolCallRequested").empty()) << "neither call reached the child";
  EXPECT_TRUE(held_.jobs.empty()) << "the waiting one was never checked";
}

// The first of two calls under one request id finishing leaves the second cancellable.
TEST_F(OffloadValidationTest, TheSecondCallUnderAReusedRequestIdStaysCancellable) {
  Open(held_.Runner());
  SendAs("a", 7, "kid__echo", LargeEcho("first"));
  SendAs("a", 7, "kid__echo", LargeEcho("second"));
  held_.RunFirst();
  ASSERT_EQ(TextOf(Await("a", 7)), "first");
  RunUntil([&] { return held_.jobs.size() == 1; });  // the second's check
  Cancel("a", 7);
  held_.RunFirst();
  RunUntil([&] { return gateway_->calls_in_flight() == 0 && EndpointInFlight("a") == 0; });
  OnlyDenial("cancelled");
  EXPECT_EQ(Events("ToolCallRequested").size(), 1u) << "only the first reached the child";
}

// Checks run one at a time, the sessions taking turns: b's one large call is checked
// before a's second, however many a queued first.
TEST_F(OffloadValidationTest, SessionsTakeTurnsForTheChecks) {
  Open(held_.Runner());
  const int a1 = Send("a", "kid__echo", LargeEcho("a1"));
  const int a2 = Send("a", "kid__echo", LargeEcho("a2"));
  const int a3 = Send("a", "kid__echo", LargeEcho("a3"));
  const int b1 = Send("b", "kid__echo", LargeEcho("b1"));
  ASSERT_EQ(held_.jobs.size(), 1u);
  held_.RunFirst();  // a1
  EXPECT_EQ(TextOf(Await("a", a1)), "a1");
  RunUntil([&] { return held_.jobs.size() == 1; });
  held_.RunFirst();  // b1, before a2
  EXPECT_EQ(TextOf(Await("b", b1)), "b1");
  EXPECT_FALSE(Answered("a", a2));
  RunUntil([&] { return held_.jobs.size() == 1; });
  held_.RunFirst();
  EXPECT_EQ(TextOf(Await("a", a2)), "a2");
  RunUntil([&] { return held_.jobs.size() == 1; });
  held_.RunFirst();
  EXPECT_EQ(TextOf(Await("a", a3)), "a3");
}

// A session with GatewayOptions::checks_waiting_per_session checks waiting gets its next
// large call refused at once; small calls and other sessions go on.
TEST_F(OffloadValidationTest, ASessionWithTooManyChecksWaitingIsRefusedAtOnce) {
  Open(held_.Runner(), [](GatewayOptions& options) { options.checks_waiting_per_session = 2; });
  Send("a", "kid__echo", LargeEcho("running"));
  Send("a", "kid__echo", LargeEcho("waiting 1"));
  Send("a", "kid__echo", LargeEcho("waiting 2"));
  const int over = Send("a", "kid__echo", LargeEcho("over"));
  const json refused = Await("a", over);
  EXPECT_EQ(ErrorOf(refused)["code"], kCallFailed);
  OnlyDenial("too-many-checks");
  EXPECT_EQ(TextOf(Await("a", Send("a", "kid__echo", R"({"text":"small"})"))), "small");
  Send("b", "kid__echo", LargeEcho("b's own"));
  EXPECT_EQ(Events("ToolCallDenied").size(), 1u) << "the bound is per session";
}

// A call cancelled while its check waits is never checked: it is denied at once.
TEST_F(OffloadValidationTest, ACallCancelledWhileItsCheckWaitsIsNeverChecked) {
  Open(held_.Runner());
  const int first = Send("a", "kid__echo", LargeEcho("first"));
  const int second = Send("a", "kid__echo", LargeEcho("second"));
  Cancel("a", second);
  OnlyDenial("cancelled");
  held_.RunFirst();
  EXPECT_EQ(TextOf(Await("a", first)), "first");
  RunReady();
  EXPECT_TRUE(held_.jobs.empty()) << "the cancelled one's check was dropped";
  EXPECT_FALSE(Answered("a", second));
}

// A guard that refuses every call once told to: an operator's revoke or disable, as the
// grant and source guards see it.
struct SwitchedGuard final : CallGuard {
  bool refuse = false;
  std::optional<Refusal> BeforeCall(const SessionInfo&, const CatalogTool&, std::string_view) override {
    if (!refuse) return std::nullopt;
    return Refusal{"no-grant", kCallRefused, "Not permitted"};
  }
};

// The guards decide again after a check off the loop: what was revoked meanwhile is not
// requested.
TEST_F(OffloadValidationTest, AGuardThatRefusesDuringTheCheckStopsTheCall) {
  SwitchedGuard guard;
  Open(held_.Runner(), [&guard](GatewayOptions& options) { options.guards = {&guard}; });
  const int id = Send("a", "kid__echo", LargeEcho("revoked meanwhile"));
  ASSERT_EQ(held_.jobs.size(), 1u) << "allowed before the check";
  guard.refuse = true;
  held_.RunFirst();
  const json refused = Await("a", id);
  EXPECT_EQ(ErrorOf(refused)["code"], kCallRefused);
  OnlyDenial("no-grant");
  EXPECT_TRUE(Events("ToolCallRequested").empty());
}

// A guard with its own refusal, which may conceal earlier ones (tools/call_guard.h).
struct WordedGuard final : CallGuard {
  WordedGuard(std::string why, std::string_view text, bool conceals_earlier)
      : reason(std::move(why)), message(text), conceals(conceals_earlier) {}
  std::optional<Refusal> BeforeCall(const SessionInfo&, const CatalogTool&, std::string_view) override {
    if (!refuse) return std::nullopt;
    return Refusal{reason, kCallRefused, message};
  }
  bool ConcealsEarlierRefusals() const override { return conceals; }
  std::string reason;
  std::string_view message;
  bool conceals;
  bool refuse = true;
};

// The first refusal is what the log records; the client hears a later concealing guard's
// text when that guard refuses too, so an agent not permitted a tool learns nothing of the
// tool's other rules (probe DS2) — and a permitted one still hears why it was refused.
TEST_F(OffloadValidationTest, AConcealingGuardThatAlsoRefusesIsWhatTheClientHears) {
  WordedGuard policy("skarbiec-ttl", "Arguments refused by local policy", false);
  WordedGuard quiet("source-disabled", "Source disabled", false);
  WordedGuard grants("no-grant", "Tool call not permitted", true);
  Open(nullptr, [&](GatewayOptions& options) { options.guards = {&policy, &quiet, &grants}; });
  quiet.refuse = false;
  const json not_permitted = Await("a", Send("a", "kid__echo", R"({"text":"x"})"));
  EXPECT_EQ(ErrorOf(not_permitted)["message"], "Tool call not permitted");
  EXPECT_EQ(ErrorOf(not_permitted)["code"], kCallRefused);
  OnlyDenial("skarbiec-ttl");

  grants.refuse = false;
  const json refused = Await("a", Send("a", "kid__echo", R"({"text":"y"})"));
  EXPECT_EQ(ErrorOf(refused)["message"], "Arguments refused by local policy");

  policy.refuse = false;
  quiet.refuse = true;  // refuses after the first guard, conceals nothing: its own text
  const json disabled = Await("a", Send("a", "kid__echo", R"({"text":"z"})"));
  EXPECT_EQ(ErrorOf(disabled)["message"], "Source disabled");
  std::vector<std::string> reasons;
  for (const json& event : AwaitEvents("ToolCallDenied", 3)) {
    reasons.push_back(event["payload"]["reason"]);
  }
  EXPECT_EQ(reasons, (std::vector<std::string>{"skarbiec-ttl", "skarbiec-ttl", "source-disabled"}));
  EXPECT_TRUE(Events("ToolCallRequested").empty());
}

// The call timeout counts the time a call waits for and undergoes its check.
TEST_F(OffloadValidationTest, TheCallTimeoutCoversTheCheck) {
  Open(held_.Runner(), [](GatewayOptions& options) { options.call_timeout_ms = 100; });
  const int id = Send("a", "kid__echo", LargeEcho("too late"));
  const json timed_out = Await("a", id);  // the check is still held
  EXPECT_EQ(ErrorOf(timed_out)["code"], kCallTimedOut);
  OnlyDenial("timeout");
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
  held_.RunFirst();  // its verdict comes back to a call already answered
  RunReady();
  EXPECT_TRUE(Events("ToolCallRequested").empty());
  EXPECT_EQ(Events("ToolCallDenied").size(), 1u);
}

// A clock that moves on by 2 s at every reading: each step of a call takes "too long".
class LeapingClock final : public MonotonicClock {
 public:
  int64_t NowNanos() const override { return now_ += 2'000'000'000; }

 private:
  mutable int64_t now_ = 0;
};

// A call whose request was recorded only after its deadline (a slow disk) is not sent: it
// is answered as timed out and recorded failed, never having reached the child (probe Y1).
TEST_F(OffloadValidationTest, ACallOutOfTimeWhenItsRequestIsRecordedIsNotSent) {
  static const LeapingClock clock;
  Open(held_.Runner(), [](GatewayOptions& options) {
    options.call_timeout_ms = 1500;
    options.clock = &clock;
  });
  const json timed_out = Await("a", Send("a", "kid__echo", R"({"text":"late"})"));
  EXPECT_EQ(ErrorOf(timed_out)["code"], kCallTimedOut);
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
  auto completed = AwaitEvents("ToolCallCompleted", 1);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Failed") << completed[0].dump();
  EXPECT_EQ(completed[0]["payload"]["error_code"], "timeout") << completed[0].dump();
  EXPECT_EQ(Events("ToolCallRequested").size(), 1u);
}

// A disk that stalls while several calls are open (their syncs run off the loop): the
// call timeout answers each at its deadline, and once the disk comes back each is
// recorded failed, never sent.
TEST_F(OffloadValidationTest, TheCallTimeoutAnswersCallsWhoseRequestsWaitForAStalledDisk) {
  hold_syncs_ = true;
  Open(held_.Runner(), [](GatewayOptions& options) { options.call_timeout_ms = 200; });
  const int first = Send("a", "kid__echo", R"({"text":"first"})");
  const int second = Send("b", "kid__echo", R"({"text":"second"})");
  EXPECT_EQ(ErrorOf(Await("a", first))["code"], kCallTimedOut);
  EXPECT_EQ(ErrorOf(Await("b", second))["code"], kCallTimedOut);
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
  EXPECT_GE(held_syncs_->held(), 1u) << "answered while the requests were not yet durable";
  EXPECT_TRUE(Events("ToolCallCompleted").empty());
  held_syncs_->Release();
  auto completed = AwaitEvents("ToolCallCompleted", 2);
  ASSERT_EQ(completed.size(), 2u);
  for (const json& event : completed) {
    EXPECT_EQ(event["payload"]["outcome"], "Failed") << event.dump();
    EXPECT_EQ(event["payload"]["error_code"], "timeout") << event.dump();
  }
  EXPECT_EQ(Events("ToolCallRequested").size(), 2u);
  // The child never saw them: the call that asks it is the only one it has read.
  const json received = Await("a", Send("a", "kid__received", "{}"));
  ASSERT_TRUE(received.contains("result")) << received.dump();
  size_t calls_read = 0;
  for (const json& line : json::parse(TextOf(received))) calls_read += line[0] == "tools/call";
  EXPECT_EQ(calls_read, 1u) << TextOf(received);
}

// Probe GO1: a call cancelled while its request waits for the disk got the timeout error at
// its deadline, and was recorded "timeout": a cancelled call gets no response.
TEST_F(OffloadValidationTest, ACallCancelledWhileItsRequestWaitsForTheDiskGetsNoResponse) {
  hold_syncs_ = true;
  Open(held_.Runner(), [](GatewayOptions& options) { options.call_timeout_ms = 200; });
  const int first = Send("a", "kid__echo", R"({"text":"first"})");
  const int second = Send("a", "kid__echo", R"({"text":"second"})");
  RunUntil([&] { return held_syncs_->held() >= 1; });
  Cancel("a", first);
  EXPECT_EQ(ErrorOf(Await("a", second))["code"], kCallTimedOut);
  RunUntil([&] { return gateway_->calls_in_flight() == 0; });
  RunReady();
  EXPECT_FALSE(Answered("a", first)) << SessionOf("a").responses[first];
  held_syncs_->Release();
  auto completed = AwaitEvents("ToolCallCompleted", 2);
  ASSERT_EQ(completed.size(), 2u);
  std::multiset<std::string> reasons;
  for (const json& event : completed) reasons.insert(event["payload"]["error_code"].get<std::string>());
  EXPECT_EQ(reasons, (std::multiset<std::string>{"cancelled", "timeout"}));
}

// A lone call's sync runs on the loop, unless a call timeout asks for every sync off it (as
// ServerCore does): then a stalled disk cannot hold even a lone call past its deadline.
TEST_F(OffloadValidationTest, WithACallTimeoutALoneCallIsAnsweredAtItsDeadlineThoughTheDiskStalls) {
  hold_syncs_ = true;
  sync_off_loop_always_ = true;
  Open(held_.Runner(), [](GatewayOptions& options) { options.call_timeout_ms = 200; });
  const int lone = Send("a", "kid__echo", R"({"text":"lone"})");
  EXPECT_EQ(ErrorOf(Await("a", lone))["code"], kCallTimedOut);
  EXPECT_GE(held_syncs_->held(), 1u);
  held_syncs_->Release();
  auto completed = AwaitEvents("ToolCallCompleted", 1);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["payload"]["error_code"], "timeout") << completed[0].dump();
}

// The server going away answers every call whose check waits or runs, denied "shutdown",
// and requests none of them.
TEST_F(OffloadValidationTest, EndingTheChecksAnswersEveryCallWaitingForOne) {
  Open(held_.Runner());
  const int running = Send("a", "kid__echo", LargeEcho("running"));
  const int waiting = Send("b", "kid__echo", LargeEcho("waiting"));
  gateway_->EndChecks();
  EXPECT_EQ(Await("a", running)["error"]["code"], kCallFailed);
  EXPECT_EQ(Await("b", waiting)["error"]["code"], kCallFailed);
  EXPECT_EQ(gateway_->calls_in_flight(), 0u);
  auto denied = AwaitEvents("ToolCallDenied", 2);
  ASSERT_EQ(denied.size(), 2u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "shutdown");
  EXPECT_EQ(denied[1]["payload"]["reason"], "shutdown");
  held_.RunFirst();
  RunReady();
  EXPECT_TRUE(held_.jobs.empty());
  EXPECT_TRUE(Events("ToolCallRequested").empty());
}

// The gateway goes (the server shuts down) while a check is held; the verdict that comes
// back afterwards is dropped, not run against a destroyed gateway.
TEST_F(OffloadValidationTest, AVerdictThatComesBackAfterTheGatewayWentIsDropped) {
  Open(held_.Runner());
  Send("a", "kid__echo", LargeEcho("orphan"));
  ASSERT_EQ(held_.jobs.size(), 1u);
  sessions_.clear();
  gateway_.reset();
  held_.RunFirst();  // posts its verdict
  RunReady();      // runs it: a no-op
  EXPECT_TRUE(Events("ToolCallRequested").empty());
}

// With the real worker thread: the check runs there and the call is answered on the loop.
TEST_F(OffloadValidationTest, TheWorkerThreadChecksALargeArgumentAndTheCallIsAnswered) {
  WorkerThread worker;
  Open(worker.Runner());
  const int large = Send("a", "kid__echo", LargeEcho("via the worker"));
  const int refused = Send("b", "echo__echo",
                           json{{"message", "hi"}, {"pad", std::string(4 * kThreshold, 'y')}}.dump());
  const json answer = Await("a", large);
  EXPECT_EQ(TextOf(answer), "via the worker") << answer.dump();
  const json refusal = Await("b", refused);
  EXPECT_EQ(refusal["error"]["data"]["detail"], kPadRefused)
      << refusal.dump();
  EXPECT_EQ(AwaitEvents("ToolCallCompleted", 1).size(), 1u);
  Close();  // before `worker` goes: the gateway must not outlive its runner
}

// What the ledger keeps of the client's own text is bounded like arguments are: a request
// id over 256 bytes is recorded as its SHA-256, an unknown tool's name is cut at a
// character boundary (the log stays valid UTF-8).
TEST_F(OffloadValidationTest, TheLedgerBoundsTheClientsRequestIdAndUnknownToolName) {
  Open(nullptr);
  const auto call_with_id = [](const std::string& id) {
    return R"({"jsonrpc":"2.0","id":)" + id +
           R"(,"method":"tools/call","params":{"name":"kid__echo","arguments":{"text":"x"}}})";
  };
  // An id over kMaxRequestIdBytes never reaches the gateway; the longest allowed is
  // recorded as sent.
  SessionOf("a").endpoint->OnLine(call_with_id("\"" + std::string(100'000, 'i') + "\""));
  const std::string longest = "\"" + std::string(kMaxRequestIdBytes - 2, 'i') + "\"";
  SessionOf("a").endpoint->OnLine(call_with_id(longest));
  auto requested = AwaitEvents("ToolCallRequested", 1);
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0]["payload"]["request_id"], longest);
  AwaitEvents("ToolCallCompleted", 1);
  EXPECT_EQ(AwaitEvents("ToolCallRequested", 1).size(), 1u) << "the over-long one was not called";

  std::string name = "kid__";
  for (int i = 0; i < 200; ++i) name += "\u00e9";  // é, two bytes each
  Send("a", name, "{}");
  auto denied = AwaitEvents("ToolCallDenied", 1);
  ASSERT_EQ(denied.size(), 1u);
  const std::string recorded = denied[0]["payload"]["tool"];
  EXPECT_EQ(denied[0]["payload"]["reason"], "unknown-tool");
  EXPECT_LE(recorded.size(), 256u);
  std::string expected = "kid__";
  while (expected.size() + 2 <= 256) expected += "\xc3\xa9";  // whole characters only
  EXPECT_EQ(recorded, expected);
}

}  // namespace
}  // namespace las::tools
