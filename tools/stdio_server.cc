#include "tools/stdio_server.h"

#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "log/event_log.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/mcp_endpoint.h"
#include "tools/random_id.h"
#include "transport/child_process.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

constexpr size_t kMaxClientLine = 4 * 1024 * 1024;

// Writes lines to stdout on its own thread, in order, each followed by '\n'.
class LineWriter {
 public:
  LineWriter() : thread_([this] { Run(); }) {}
  ~LineWriter() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void Write(std::string line) {
    line.push_back('\n');
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(line));
    }
    wake_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing and drained
      std::string line = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      size_t written = 0;
      while (written < line.size()) {
        ssize_t n = ::write(STDOUT_FILENO, line.data() + written, line.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the client is gone; nothing else can be done with this line
        written += static_cast<size_t>(n);
      }
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  std::thread thread_;  // last: starts after the rest is built
};

std::optional<std::string> Lookup(const trust::Environment& env, const char* name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

FederationOptions FederationOptionsFor(const ServerOptions& options) {
  FederationOptions federation;
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
  LineWriter& writer;
  std::unique_ptr<McpEndpoint> endpoint;
  bool input_ended = false;
  bool finishing = false;

  void MaybeFinish() {
    if (!input_ended || finishing || endpoint->in_flight() > 0) return;
    finishing = true;
    auto end_children = [this] { federation.Shutdown([this] { io.stop(); }); };
    if (endpoint->session()) {
      gateway.CloseSession(*endpoint->session(), "eof", end_children);
    } else {
      end_children();
    }
  }
};

// Reads stdin on its own thread and posts each event to the loop.
std::thread StartReader(boost::asio::io_context& io, Session& session) {
  return std::thread([&io, &session] {
    transport::LineFramer framer(kMaxClientLine);
    auto sink = [&](const transport::LineEvent& event) {
      std::string bytes(event.bytes);
      if (event.kind == transport::LineEvent::Kind::kTooLong) {
        boost::asio::post(io, [&session, bytes] { session.endpoint->OnOversizedLine(bytes); });
      } else {
        boost::asio::post(io, [&session, bytes] { session.endpoint->OnLine(bytes); });
      }
    };
    char buffer[1 << 16];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      framer.Feed(std::string_view(buffer, static_cast<size_t>(n)), sink);
    }
    framer.Finish(sink);
    boost::asio::post(io, [&session] {
      session.input_ended = true;
      session.MaybeFinish();
    });
  });
}

}  // namespace

Status RunStdioServer(const ServerOptions& options) {
  (void)transport::BecomeChildSubreaper();  // orphans of children are ours to reap
  transport::IgnoreSigpipe();
  auto log = log::EventLog::Open(options.log_dir);
  if (!log.ok()) return log.status();

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  Federation federation(io, **log, FederationOptionsFor(options));
  GatewayOptions gateway_options;
  gateway_options.call_timeout_ms = options.call_timeout_ms;
  if (options.relaxed_durability) gateway_options.request_durability = log::Durability::kDeferred;
  gateway_options.new_call_id = [] { return RandomId("call-"); };
  Gateway gateway(io, **log, federation, gateway_options);
  LineWriter writer;
  Session session{io, federation, gateway, writer, nullptr};
  std::thread reader;

  federation.Start([&] {
    EndpointOptions endpoint;
    endpoint.default_agent_id =
        Lookup(options.environment, "LAS_AGENT_ID").value_or(std::string("default"));
    if (federation.ClientFor("skarbiec") != nullptr) {
      // Skarbiec is active: only its configured agent may open a session.
      endpoint.required_agent_id =
          Lookup(options.environment, "SKARBIEC_MCP_AGENT_ID").value_or(std::string("\x01"));
    }
    endpoint.new_session_id = [] { return RandomId("session-"); };
    session.endpoint = std::make_unique<McpEndpoint>(
        endpoint, gateway, [&writer](std::string line) { writer.Write(std::move(line)); });
    session.endpoint->set_on_idle([&session] { session.MaybeFinish(); });
    reader = StartReader(io, session);
  });
  io.run();
  if (reader.joinable()) reader.join();
  return federation.status();
}

Status RunList(const ServerOptions& options, bool json) {
  (void)transport::BecomeChildSubreaper();
  transport::IgnoreSigpipe();
  auto log = log::EventLog::Open(options.log_dir);
  if (!log.ok()) return log.status();
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  Federation federation(io, **log, FederationOptionsFor(options));
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
