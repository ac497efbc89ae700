// Every `las__*` tool of this build, registered in one place: what each feature needs from
// the server (the loop, the log, the live projections, the configuration) comes in
// LasToolContext, and each feature adds its own tools to the table.
#pragma once

#include "tools/builtin_tools.h"
#include "trust/environment.h"

namespace boost::asio {
class io_context;
}
namespace las::log {
class EventLog;
}

namespace las::tools {

class LiveProjections;

struct LasToolContext {
  boost::asio::io_context& io;
  log::EventLog& log;
  LiveProjections& live;
  const trust::Environment& environment;
};

void AddLasTools(BuiltinTools& tools, const LasToolContext& context);

}  // namespace las::tools
