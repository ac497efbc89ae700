// `las daemon`: one Las server for many MCP clients. It owns the log (as its only writer)
// and the children, and serves every connection on its Unix socket
// (tools/daemon_socket.h: mode 0600 in a private 0700 directory, peers of another uid
// refused) as its own MCP session (tools/daemon_connection.h). So several clients — each its
// own agent — share one catalog, one set of projections and one log.
//
// Start: refuses (kLocked) if a daemon already answers on this log's socket; opens the log
// (a second writer fails on RocksDB's lock); federates; replaces a stale socket file; binds;
// then calls `on_listening` with the socket path and accepts.
// Stop (SIGTERM or SIGINT): stops accepting, stops reading from every client, lets calls
// in flight settle and be logged, records each SessionClosed ("shutdown" unless the client
// had gone), ends every child, removes the socket file, returns Ok. A second signal ends
// the children at once (their pending calls fail and are recorded as completed).
//
// Errors: the socket directory's (kDenied, kIo), the log's (kLocked, kIo, kCorruption,
// ...), a bind failure (kIo), or a log failure during federation.
// Threading: one Boost.Asio io_context thread runs everything (the log's syncer posts the
// completions of syncs made off the loop to it: tools/loop_appender.h). Blocks until stopped.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "base/result.h"
#include "tools/server_options.h"
#include "tools/stop_signals.h"

namespace las::tools {

struct DaemonOptions {
  std::string xdg_runtime_dir;  // the value of XDG_RUNTIME_DIR; "" when unset
  size_t max_connections = 1024;  // beyond this, new connections are closed at once
  size_t max_line_bytes = 4 * 1024 * 1024;
  // What all connections may hold at once in lines not yet ended (PartialLineBudget):
  // sixteen lines of the maximum length.
  size_t max_partial_line_bytes = 64 * 1024 * 1024;
  // What each connection may hold in a line not yet ended whatever the others hold: a
  // request of up to this size always passes (1,024 connections: 256 MiB at most).
  size_t partial_line_floor_bytes = 256 * 1024;
  // What all connections may hold at once in answers not yet written (AnswerBudget), and
  // what each may hold whatever the others do (1,024 connections: 256 MiB at most, plus an
  // answer each).
  size_t max_unwritten_answer_bytes = 256 * 1024 * 1024;
  size_t unwritten_answer_floor_bytes = 256 * 1024;
  std::function<void(const std::string& socket_path)> on_listening;
  std::function<void(const std::string& note)> on_note;  // refusals etc. (static text)
  // What a third signal writes to stderr as it exits (tools/stop_signals.h).
  std::string third_signal_line = StopSignals::ThirdSignalLine("las daemon: ");
};

Status RunDaemon(const ServerOptions& options, const DaemonOptions& daemon);

}  // namespace las::tools
