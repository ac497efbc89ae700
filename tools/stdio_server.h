// The stdio MCP server: `las serve` (and `las list`) as a library call.
//
// Serve: builds the server core (tools/server_core.h: the log as its writer, projections,
// las__ tools, federation, gateway), federates, then serves one MCP session
// (tools/line_session.h) on stdin/stdout — one JSON-RPC message per line each way, nothing
// else ever on stdout. On stdin EOF it waits for in-flight calls to settle, records SessionClosed,
// ends every child (process group) and reaps it, and returns 0. That wait has no bound of
// its own while stdout has a reader; once stdin has ended and stdout has no reader
// (LineOutput::WhenReaderGone, or a failed write), no answer can reach anyone: the calls in
// flight are ended as at a signal, the session closes "disconnect", and the result is kIo. On SIGTERM, SIGINT or SIGHUP
// it ends the children at once (their calls in flight fail and are recorded so), then
// closes the session ("shutdown") as at EOF and returns 0. The answers still due get
// `signal_drain_limit` from the signal to reach a client that reads them; a second signal,
// or the limit, drops those not yet written (LineOutput::Abandon) — the session is still
// recorded closed ("shutdown"), durably, and the result is kIo when an answer was dropped.
// A failed log ends serving the same way (the result is then the log's error), the answers
// due getting the same limit. A third signal stops the loop at once (nothing more recorded): the last way out of
// something that never ends, such as a disk that never completes a sync. (`las serve`
// bridges to a running `las daemon` instead when one serves the same log:
// tools/daemon_bridge.h.)
//
// With `operator_socket`, once federated it also binds the log's operator-only socket
// (tools/operator_listener.h) so the operator's `las` changes reach it while it holds the
// log; it stops accepting there when stdin ends, and removes the socket. A failure to bind
// it is reported through `on_note` (static text and the socket's path) and serving goes on:
// the operator's changes then exit 7 as when nothing listens.
//
// Threading: one Boost.Asio io_context thread runs everything, stdin and stdout included
// when they are pipes or sockets (tools/stdio_lines.h), and the log's writes
// (tools/loop_appender.h: synced inline for a lone call, by the log's syncer otherwise).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "tools/server_options.h"
#include "tools/stop_signals.h"

namespace las::tools {

struct StdioServerOptions {
  bool operator_socket = false;  // bind the operator-only socket (see above)
  std::string xdg_runtime_dir;   // the value of XDG_RUNTIME_DIR; "" when unset
  std::function<void(const std::string& note)> on_note;  // warnings (no secrets)
  // What a third signal writes to stderr as it exits (tools/stop_signals.h).
  std::string third_signal_line = StopSignals::ThirdSignalLine("las serve: ");
  // How long after a first signal answers may still wait for a client that does not read
  // them (see above).
  std::chrono::milliseconds signal_drain_limit{5000};
};

// Serves until stdin ends. Ok on a clean end; an error when the log cannot be opened or
// written (the caller reports it).
Status RunStdioServer(const ServerOptions& options, const StdioServerOptions& stdio = {});

// Federates, prints the catalog on stdout (names, or with `json` the full entries plus
// each configured surface's state), ends the children. A tool whose source is disabled
// (docs/SOURCES.md) is what tools/list leaves out: the names leave it out too and
// `on_note` names each such source once; the JSON keeps it with "enabled": false.
Status RunList(const ServerOptions& options, bool json,
               const std::function<void(const std::string& note)>& on_note);

}  // namespace las::tools
