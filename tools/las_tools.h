// Every `las__*` tool and every call guard of this build, registered in one place. What a
// feature needs from the server (the loop, the log, the live projections, the
// configuration, and — once they exist — the federation and the gateway) comes in
// LasToolContext; each feature adds its own tools and guards here, so `las serve`,
// `las list` and `las daemon` all get the same set.
#pragma once

#include <memory>
#include <vector>

#include "tools/builtin_tools.h"
#include "tools/call_guard.h"
#include "tools/server_options.h"

namespace boost::asio {
class io_context;
}
namespace las::log {
class EventLog;
}

namespace las::tools {

class Federation;
class Gateway;
class HandlesInCreation;
class LiveProjections;
class LoopAppender;

// Parts of the server that are built after the tool table (the federation's catalog
// includes the tools' definitions). Filled in before the first call; a handler reads them
// at call time, never at registration.
struct ServerLinks {
  Federation* federation = nullptr;
  Gateway* gateway = nullptr;
};

struct LasToolContext {
  boost::asio::io_context& io;
  log::EventLog& log;
  LiveProjections& live;
  LoopAppender& appender;  // appends from the loop (tools/loop_appender.h)
  HandlesInCreation& handles_in_creation;  // shared with the gateway
  const ServerOptions& options;
  ServerLinks& links;
};

// Adds every las__ tool. `context` and everything it refers to must outlive `tools`.
void AddLasTools(BuiltinTools& tools, const LasToolContext& context);

// The call guards, in the order the gateway runs them: source state, special surface
// policies, grants. They must outlive the gateway that runs them.
std::vector<std::unique_ptr<CallGuard>> MakeCallGuards(const LasToolContext& context);

}  // namespace las::tools
