// What `las serve`, `las list` and `las daemon` are configured with: the log, the surface
// registry, Las's environment and the serving flags. A value type.
#pragma once

#include <cstdint>
#include <string>

#include "tools/registry.h"
#include "trust/environment.h"

namespace las::tools {

struct ServerOptions {
  std::string log_dir;
  Registry registry = DefaultRegistry();
  trust::Environment environment;
  int64_t call_timeout_ms = 0;
  bool relaxed_durability = false;  // see GatewayOptions::request_durability
  std::string node_executable;
};

}  // namespace las::tools
