#include "tools/surface_launcher.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "transport/mcp_client.h"

namespace las::tools {

Result<std::vector<trust::LiveTool>> ParseLiveTools(std::string_view tools_json) {
  const auto tools = nlohmann::json::parse(tools_json, nullptr, /*allow_exceptions=*/false);
  if (!tools.is_array()) return InvalidArgument("tools/list did not return an array");
  std::vector<trust::LiveTool> live;
  for (const auto& tool : tools) {
    if (!tool.is_object()) return InvalidArgument("a tools/list entry is not an object");
    auto name = tool.find("name");
    auto schema = tool.find("inputSchema");
    if (name == tool.end() || !name->is_string()) {
      return InvalidArgument("a tools/list entry has no string name");
    }
    if (schema == tool.end() || !schema->is_object()) {
      return InvalidArgument("a tools/list entry has no inputSchema object");
    }
    trust::LiveTool entry;
    entry.name = name->get<std::string>();
    entry.input_schema_json = schema->dump();
    if (auto description = tool.find("description");
        description != tool.end() && !description->is_null()) {
      if (!description->is_string()) {
        return InvalidArgument("a tools/list entry has a non-string description");
      }
      entry.description = description->get<std::string>();
    }
    live.push_back(std::move(entry));
  }
  return live;
}

namespace {

// Everything one launch needs until its last callback: the plan's descriptors stay open
// until the child has been started from them.
struct LaunchState : std::enable_shared_from_this<LaunchState> {
  boost::asio::io_context* io = nullptr;
  const trust::SurfaceBinding* surface = nullptr;
  bool probe_only = false;
  trust::LaunchPlan plan;
  SurfaceLaunch result;
  std::function<void(SurfaceLaunch)> done;

  void Finish(bool ok, std::string_view reason, std::string detail) {
    result.ok = ok;
    result.reason = std::string(reason);
    result.detail = std::move(detail);
    auto callback = std::move(done);
    callback(std::move(result));
  }

  // A failed launch ends its child (if one started) before reporting, so a rejected
  // surface never leaves a process behind.
  void Fail(std::string_view reason, std::string detail) {
    if (!result.client) return Finish(false, reason, std::move(detail));
    auto self = shared_from_this();
    result.client->Shutdown([self, reason = std::string(reason), detail = std::move(detail)] {
      // The client must not be destroyed inside its own callback: post it.
      boost::asio::post(*self->io, [self, reason, detail] {
        self->result.client.reset();
        self->Finish(false, reason, detail);
      });
    });
  }
};

}  // namespace

void LaunchSurface(boost::asio::io_context& io, const trust::SurfaceBinding& surface,
                   const LaunchOptions& options, std::function<void(SurfaceLaunch)> done) {
  auto state = std::make_shared<LaunchState>();
  state->io = &io;
  state->surface = &surface;
  state->probe_only = options.probe_only;
  state->result.surface = surface.name;
  state->done = std::move(done);

  auto plan = trust::PlanLaunch(surface, options.policy);
  if (!plan.ok()) {
    const trust::Verdict& verdict = plan.verdict();
    boost::asio::post(io, [state, reason = std::string(verdict.reason_name()),
                           detail = verdict.detail()] { state->Finish(false, reason, detail); });
    return;
  }
  state->plan = std::move(*plan);

  transport::McpClientOptions client_options;
  client_options.spawn.argv = state->plan.argv;
  // The checked directory itself, not its path: a swap after the check changes nothing.
  client_options.spawn.cwd = "/proc/self/fd/" + std::to_string(state->plan.cwd.get());
  client_options.spawn.env = state->plan.env;
  client_options.spawn.exec_fd = state->plan.binary.get();
  client_options.spawn.keep_fds = state->plan.inherit_fds;
  client_options.start_timeout = std::chrono::milliseconds(options.start_timeout_ms);
  state->result.client = std::make_unique<transport::McpClient>(io, std::move(client_options));

  state->result.client->Start([state](transport::CallResult started) {
    state->plan = trust::LaunchPlan{};  // the child runs; our copies of the fds can go
    if (!started.ok()) {
      state->Fail(kReasonStartFailed,
                    "the child did not start or initialize (" +
                        std::string(transport::CallErrorName(started.error)) + ")");
      return;
    }
    state->result.client->ListTools([state](transport::CallResult listed) {
      if (!listed.ok()) {
        state->Fail(kReasonListFailed,
                    "tools/list failed (" +
                        std::string(transport::CallErrorName(listed.error)) + ")");
        return;
      }
      auto live = ParseLiveTools(listed.result);
      if (!live.ok()) {
        state->Fail(kReasonListFailed, live.status().message());
        return;
      }
      state->result.live_tools = std::move(*live);
      if (!state->probe_only) {
        trust::Verdict verdict = trust::CheckToolList(*state->surface, state->result.live_tools);
        if (!verdict.ok()) {
          state->Fail(verdict.reason_name(), verdict.detail());
          return;
        }
      }
      state->Finish(true, "", "");
    });
  });
}

}  // namespace las::tools
