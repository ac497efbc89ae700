// A server in a test: a real log in a temp dir, the live projections, the coordination
// tools (tools/coordination_tools.h) and the grant tools behind the real Gateway (no call
// guards), and one McpEndpoint per
// agent fed JSON-RPC lines — everything `las serve` runs except stdio. Close() and Open()
// again is a restart on the same log.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "log/event_log.h"
#include "tests/support/held_syncs_log.h"
#include "tests/support/temp_dir.h"
#include "tools/admin_tools.h"
#include "tools/coordination_tools.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/grant_tools.h"
#include "tools/handles_in_creation.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/mcp_endpoint.h"

namespace las::tools {

class CoordinationHarness {
 public:
  explicit CoordinationHarness(std::string log_dir) : log_dir_(std::move(log_dir)) {}
  ~CoordinationHarness() { Close(); }

  // Before Open: a disk whose syncs stall until held_syncs().Release()
  // (tests/support/held_syncs_log.h), every sync made off the loop.
  void HoldSyncs() { hold_syncs_ = true; }
  testing::HeldSyncsLog& held_syncs() { return *held_syncs_; }
  // Before Open: CoordinationOptions::max_state_bytes_per_agent (none by default).
  void SetStateQuota(uint64_t bytes) { state_quota_ = bytes; }
  // Before Open: CoordinationOptions::max_open_messages_per_agent (none by default).
  void SetMailboxBound(uint64_t messages) { mailbox_bound_ = messages; }
  // Before Open: the las.admin tools too (`las serve --admin`).
  void AddAdmin() { admin_ = true; }
  // Before Open: the live projections' options (snapshots; none by default).
  void SetLiveOptions(LiveOptions options) { live_options_ = std::move(options); }

  void Open() {
    auto log = log::EventLog::Open(log_dir_);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(*log);
    if (hold_syncs_) {
      auto held = std::make_unique<testing::HeldSyncsLog>(std::move(log_));
      held_syncs_ = held.get();
      log_ = std::move(held);
    }
    live_ = std::make_unique<LiveProjections>(*log_, live_options_);
    ASSERT_TRUE(live_->CatchUp().ok());
    appender_ = std::make_unique<LoopAppender>(io_, *log_, live_.get());
    if (hold_syncs_) appender_->SyncOffLoopAlways();
    handles_ = std::make_unique<HandlesInCreation>(HandlesStoredIn(*live_));
    context_ = std::make_unique<LasToolContext>(
        LasToolContext{io_, *log_, *live_, *appender_, *handles_, options_, links_});
    builtins_ = std::make_unique<BuiltinTools>();
    CoordinationOptions coordination;
    coordination.clock = &clock_;
    coordination.new_message_id = [this] { return "msg-" + std::to_string(++ids_); };
    coordination.max_state_bytes_per_agent = state_quota_;
    coordination.max_open_messages_per_agent = mailbox_bound_;
    AddCoordinationTools(*builtins_, *context_, coordination);
    AddGrantTools(*builtins_, *context_, GrantPolicy{},
                  [this] { return "grant-" + std::to_string(++ids_); });
    if (admin_) AddAdminTools(*builtins_, *context_);
    FederationOptions federation;
    federation.builtin_tools = builtins_->Definitions();
    federation.quiet = true;
    federation_ = std::make_unique<Federation>(io_, *log_, federation);
    bool ready = false;
    federation_->Start([&] { ready = true; });
    RunUntil([&] { return ready; });
    links_.federation = federation_.get();
    GatewayOptions gateway;
    gateway.builtins = builtins_.get();
    gateway.new_call_id = [this] { return "call-" + std::to_string(++ids_); };
    gateway.handles = handles_.get();
    gateway_ = std::make_unique<Gateway>(*appender_, *federation_, gateway);
    links_.gateway = gateway_.get();
  }

  void Close() {
    if (!log_) return;
    RunUntil([&] { return gateway_->calls_in_flight() == 0; });
    endpoints_.clear();
    gateway_.reset();
    federation_.reset();
    builtins_.reset();
    context_.reset();
    handles_.reset();
    appender_.reset();
    live_.reset();
    log_.reset();
  }

  // The tools/call result object for `agent` calling `tool` with `arguments` (JSON text);
  // the raw response line goes to *raw when given.
  nlohmann::json Call(const std::string& agent, const std::string& tool,
                      const std::string& arguments, std::string* raw = nullptr) {
    const int id = Send(agent, tool, arguments);
    return Await(agent, id, raw);
  }
  // Sends a tools/call and returns its request id without waiting.
  int Send(const std::string& agent, const std::string& tool, const std::string& arguments) {
    Client& c = ClientOf(agent);
    const int id = ++c.next_id;
    c.endpoint->OnLine(ToolsCallLine(std::to_string(id), tool, arguments));
    return id;
  }
  // The response line to a tools/call sent with the string id whose JSON text is `id_json`
  // ("" if none came).
  std::string CallWithTextId(const std::string& agent, const std::string& tool,
                             const std::string& arguments, const std::string& id_json) {
    Client& c = ClientOf(agent);
    const std::string id = nlohmann::json::parse(id_json).get<std::string>();
    c.endpoint->OnLine(ToolsCallLine(id_json, tool, arguments));
    RunUntil([&] { return c.responses_to_text_ids.count(id) != 0; });
    return c.responses_to_text_ids.count(id) != 0 ? c.responses_to_text_ids[id] : "";
  }
  // The result of request `id` (null JSON on a JSON-RPC error, whose object goes to *raw).
  nlohmann::json Await(const std::string& agent, int id, std::string* raw = nullptr) {
    Client& c = ClientOf(agent);
    RunUntil([&] { return c.responses.count(id) != 0; });
    if (c.responses.count(id) == 0) return nullptr;
    const std::string line = c.responses[id];
    if (raw != nullptr) *raw = line;
    auto response = nlohmann::json::parse(line);
    return response.contains("result") ? response["result"] : nlohmann::json();
  }

  // With HoldSyncs: runs the loop, letting through each sync it waits for, until request
  // `id` of `agent` is answered; its result, as Await gives it.
  nlohmann::json Settle(const std::string& agent, int id) {
    for (int i = 0; i < 100 && !Answered(agent, id); ++i) {
      RunReady();
      held_syncs().Release();
    }
    return Await(agent, id);
  }

  // Runs what the loop has ready, without waiting for anything more.
  void RunReady() { io_.poll(); }
  // Whether request `id` has been answered yet (without running the loop).
  bool Answered(const std::string& agent, int id) { return ClientOf(agent).responses.count(id) != 0; }

  template <typename Done>
  void RunUntil(Done done) {
    for (int i = 0; i < 600 && !done(); ++i) io_.run_one_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(done()) << "timed out waiting on the loop";
  }

  log::EventLog& log() { return *log_; }
  LiveProjections& live() { return *live_; }
  const LasToolContext& context() const { return *context_; }
  ManualClock& clock() { return clock_; }

 private:
  static std::string ToolsCallLine(const std::string& id_json, const std::string& tool,
                                   const std::string& arguments) {
    return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":"tools/call","params":{"name":")" +
           tool + R"(","arguments":)" + arguments + "}}";
  }

  struct Client {
    std::unique_ptr<McpEndpoint> endpoint;
    std::map<int, std::string> responses;
    std::map<std::string, std::string> responses_to_text_ids;
    int next_id = 100;
  };

  Client& ClientOf(const std::string& agent) {
    auto it = endpoints_.find(agent);
    if (it != endpoints_.end()) return *it->second;
    auto client = std::make_unique<Client>();
    Client* raw = client.get();
    EndpointOptions options;
    options.default_agent_id = agent;
    options.new_session_id = [this, agent] { return "session-" + agent + "-" + std::to_string(++ids_); };
    raw->endpoint = std::make_unique<McpEndpoint>(options, *gateway_, [raw](std::string line) {
      auto response = nlohmann::json::parse(line, nullptr, false);
      if (response.is_object() && response["id"].is_number_integer()) {
        raw->responses[response["id"].get<int>()] = line;
      } else if (response.is_object() && response["id"].is_string()) {
        raw->responses_to_text_ids[response["id"].get<std::string>()] = line;
      }
    });
    raw->endpoint->OnLine(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05",)"
        R"("capabilities":{},"clientInfo":{"name":"test","version":"1"}}})");
    endpoints_.emplace(agent, std::move(client));
    return *raw;
  }

  std::string log_dir_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  ManualClock clock_{1'700'000'000'000'000};
  ServerOptions options_;
  ServerLinks links_;
  int ids_ = 0;
  bool hold_syncs_ = false;
  LiveOptions live_options_;
  uint64_t state_quota_ = 0;
  uint64_t mailbox_bound_ = 0;
  bool admin_ = false;
  testing::HeldSyncsLog* held_syncs_ = nullptr;
  std::unique_ptr<log::EventLog> log_;
  std::unique_ptr<LiveProjections> live_;
  std::unique_ptr<LoopAppender> appender_;
  std::unique_ptr<HandlesInCreation> handles_;
  std::unique_ptr<LasToolContext> context_;
  std::unique_ptr<BuiltinTools> builtins_;
  std::unique_ptr<Federation> federation_;
  std::unique_ptr<Gateway> gateway_;
  std::map<std::string, std::unique_ptr<Client>> endpoints_;
};

}  // namespace las::tools
