// The sessions reducers: the MCP sessions Las opened, whose they were, and how they ended.
// A session with no SessionClosed after a restart ended with the process that held it; the
// next server to open the log records it closed, reason "lost" (tools/server_core.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

// What a server keeps (the "sessions" projection): the sessions still open, and how many
// have closed. A closed session is dropped: kept, every session ever opened would grow a
// long-running daemon's memory and snapshots without bound (probe BK1).
struct Sessions {
  std::map<std::string, SessionRecord> open;
  uint64_t closed = 0;  // SessionClosed events of sessions that were open
};

void Apply(Sessions& sessions, uint64_t sequence, const fb::Envelope& event);

// A session in the history: what a server keeps, and on what authority its agent called.
struct SessionHistoryRecord : SessionRecord {
  bool implicit_root = false;  // SessionOpened's implicit_root: the default agent's root
};

// An `initialize` a local policy refused (SessionRefused): no session was opened.
struct RefusedSession {
  uint64_t sequence = 0;
  int64_t micros = 0;
  std::string agent_id;  // the agent the client named
  std::string reason;
  std::string client_name;
  std::string client_version;
  std::string transport;
};

// Every session the log names, open or closed, and every refused one: `las inspect
// sessions` folds it from the log, as `las inspect calls` folds the call ledger; no server
// keeps it (so it can grow without touching the projections' snapshots).
struct SessionHistory {
  std::map<std::string, SessionHistoryRecord> by_id;
  std::vector<RefusedSession> refused;  // in log order
};

void Apply(SessionHistory& history, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
