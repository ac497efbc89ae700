#include "tools/stdio_server.h"

#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/live_projections.h"
#include "tools/mcp_endpoint.h"
#include "tools/las_tools.h"
#include "tools/random_id.h"
#include "tools/stdio_lines.h"
#include "transport/child_process.h"

namespace las::tools {
namespace {

constexpr size_t kMaxClientLine = 4 * 1024 * 1024;

std::optional<std::string> Lookup(const trust::Environment& env, const char* name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

FederationOptions FederationOptionsFor(const ServerOptions& options,
                                       const BuiltinTools& builtins) {
  FederationOptions federation;
  federation.builtin_tools = builtins.Definitions();
  federation.registry = options.registry;
  federation.environment = options.environment;
  federation.node_executable = options.node_executable;
  return federation;
}

// Everything one served session needs, alive for the whole run on the loop's thread.
struct Session {
  boost::asio::io_context& io;
  Federation& federation;
  Gateway& gateway;
  LineOutput& output;
  std::unique_ptr<McpEndpoint> endpoint;
  bool input_ended = false;
  bool finishing = false;

  // At stdin EOF, once no call is in flight: SessionClosed, end the children, flush the
  // last responses, stop.
  void MaybeFinish() {
    if (!input_ended || finishing || endpoint->in_flight() > 0) return;
    finishing = true;
    auto end_children = [this] {
      federation.Shutdown([this] { output.WhenDrained([this] { io.stop(); }); });
    };
    if (endpoint->session()) {
      gateway.CloseSession(*endpoint->session(), "eof", end_children);
    } else {
      end_children();
    }
  }
};

// What every federating process does first: reap its children's orphans, survive a dead
// child's pipe, and open the log as its writer.
Result<std::unique_ptr<log::EventLog>> PrepareFederatingProcess(const ServerOptions& options) {
  (void)transport::BecomeChildSubreaper();
  transport::IgnoreSigpipe();
  return log::EventLog::Open(options.log_dir);
}

}  // namespace

Status RunStdioServer(const ServerOptions& options) {
  auto log = PrepareFederatingProcess(options);
  if (!log.ok()) return log.status();

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  LiveProjections live(**log);
  if (Status folded = live.CatchUp(); !folded.ok()) return folded;
  ServerLinks links;
  const LasToolContext context{io, **log, live, options, links};
  BuiltinTools builtins;
  AddLasTools(builtins, context);
  std::vector<std::unique_ptr<CallGuard>> guards = MakeCallGuards(context);
  Federation federation(io, **log, FederationOptionsFor(options, builtins));
  links.federation = &federation;
  GatewayOptions gateway_options;
  gateway_options.builtins = &builtins;
  for (auto& guard : guards) gateway_options.guards.push_back(guard.get());
  gateway_options.call_timeout_ms = options.call_timeout_ms;
  if (options.relaxed_durability) gateway_options.request_durability = log::Durability::kDeferred;
  gateway_options.new_call_id = [] { return RandomId("call-"); };
  Gateway gateway(io, **log, federation, gateway_options);
  links.gateway = &gateway;
  std::unique_ptr<LineOutput> output = MakeStdoutOutput(io);
  Session session{io, federation, gateway, *output, nullptr};
  std::unique_ptr<LineInput> input;

  federation.Start([&] {
    EndpointOptions endpoint;
    endpoint.default_agent_id =
        Lookup(options.environment, "LAS_AGENT_ID").value_or(std::string("default"));
    if (federation.ClientFor("skarbiec") != nullptr) {
      // Skarbiec is active: only its configured agent may open a session.
      // With SKARBIEC_MCP_AGENT_ID unset no agent id can match (a control character is
      // never a valid agent id): every session is refused, closed rather than open.
      endpoint.required_agent_id =
          Lookup(options.environment, "SKARBIEC_MCP_AGENT_ID").value_or(std::string("\x01"));
    }
    endpoint.new_session_id = [] { return RandomId("session-"); };
    session.endpoint = std::make_unique<McpEndpoint>(
        endpoint, gateway, [&output](std::string line) { output->Write(std::move(line)); });
    session.endpoint->set_on_idle([&session] { session.MaybeFinish(); });
    LineInputHandlers handlers;
    handlers.on_line = [&session](std::string_view line) { session.endpoint->OnLine(line); };
    handlers.on_too_long = [&session](std::string_view prefix) {
      session.endpoint->OnOversizedLine(prefix);
    };
    handlers.on_eof = [&session] {
      session.input_ended = true;
      session.MaybeFinish();
    };
    input = StartStdinInput(io, kMaxClientLine, std::move(handlers));
  });
  io.run();
  input.reset();
  return federation.status();
}

Status RunList(const ServerOptions& options, bool json) {
  auto log = PrepareFederatingProcess(options);
  if (!log.ok()) return log.status();
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  LiveProjections live(**log);
  if (Status folded = live.CatchUp(); !folded.ok()) return folded;
  ServerLinks links;
  BuiltinTools builtins;
  AddLasTools(builtins, {io, **log, live, options, links});
  Federation federation(io, **log, FederationOptionsFor(options, builtins));
  links.federation = &federation;
  federation.Start([&] {
    if (json) {
      nlohmann::ordered_json surfaces = nlohmann::ordered_json::array();
      for (const auto& state : federation.surfaces()) {
        surfaces.push_back({{"name", state.name},
                            {"admitted", state.admitted},
                            {"reason", state.reason},
                            {"detail", state.detail},
                            {"tools", state.tools}});
      }
      nlohmann::ordered_json tools = nlohmann::ordered_json::array();
      for (const auto& tool : federation.catalog().tools()) {
        tools.push_back({{"name", tool.qualified_name},
                         {"surface", tool.surface},
                         {"tool", tool.tool},
                         {"description", tool.description ? *tool.description : ""},
                         {"definition_sha256", tool.definition_sha256},
                         {"inputSchema", nlohmann::ordered_json::parse(tool.input_schema_json,
                                                                       nullptr, false)}});
      }
      std::printf("%s\n", nlohmann::ordered_json{{"surfaces", surfaces}, {"tools", tools}}
                              .dump(2)
                              .c_str());
    } else {
      for (const auto& tool : federation.catalog().tools()) {
        std::printf("%s\n", tool.qualified_name.c_str());
      }
    }
    std::fflush(stdout);
    federation.Shutdown([&io] { io.stop(); });
  });
  io.run();
  return federation.status();
}

}  // namespace las::tools
