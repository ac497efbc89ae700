// The sessions reducer: every MCP session Las opened, whose it was, and how it ended.
// A session with no SessionClosed after a restart ended with the process that held it; the
// next server to open the log records it closed, reason "lost" (tools/server_core.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "log/envelope.h"

namespace las::reducers {

struct SessionRecord {
  std::string agent_id;
  std::string client_name;
  std::string client_version;
  std::string transport;
  uint64_t opened_sequence = 0;
  int64_t opened_micros = 0;
  uint64_t closed_sequence = 0;  // 0 while open
  std::string close_reason;
};

struct Sessions {
  std::map<std::string, SessionRecord> by_id;
};

void Apply(Sessions& sessions, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
