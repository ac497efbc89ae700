// What `las serve`, `las list` and `las daemon` are configured with: the log, the surface
// registry, Las's environment and the serving flags. A value type.
#pragma once

#include <cstddef>
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
  size_t calls_in_flight_per_surface = 1024;  // GatewayOptions; 0 = no bound
  size_t calls_in_flight_per_session = 0;      // GatewayOptions; 0 = no bound
  int64_t start_timeout_ms = 30'000;  // per child: start, initialize, list (FederationOptions)
  // The first wait before a stopped surface is started again (FederationOptions); 0 = never.
  int64_t restart_delay_ms = 1'000;
  bool relaxed_durability = false;  // see GatewayOptions::request_durability
  // CoordinationOptions::max_state_bytes_per_agent; 0 = no bound.
  uint64_t max_state_bytes_per_agent = uint64_t{64} << 20;
  // CoordinationOptions::max_open_messages_per_agent; 0 = no bound.
  uint64_t max_open_messages_per_agent = 10'000;
  std::string node_executable;
  // Write a projection snapshot every this many events, and not before the events since the
  // last one carry as many bytes as its states (tools/live_projections.h); 0 = never.
  uint64_t snapshot_every = 10000;
  // The key sealing those snapshots (tools/snapshot_key_file.h); "" = no snapshots.
  std::string snapshot_key_file;
  // Seal the log's head with that key though another key sealed it (a rotation:
  // OpenSealedLog). Without it another key's seal stays and this server appends unsealed.
  bool adopt_another_keys_seal = false;
  bool lazy = false;   // tools/list shows only the discovery tools (docs/SOURCES.md)
  bool admin = false;  // the las.admin tools are served (docs/SOURCES.md)
  // Reap, as they exit, the processes this server adopts as child subreaper
  // (transport::ReapAdoptedOrphans). Only for the las program itself: in a process that
  // makes children by other means it would reap those too.
  bool reap_adopted_orphans = false;
};

}  // namespace las::tools
