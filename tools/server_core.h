// ServerCore: everything a federating Las process holds once, whatever its clients' transport.
//
// Open() makes this process its children's subreaper, ignores SIGPIPE and SIGXFSZ, opens the
// log as its only writer (RocksDB's lock: a second writer of the same log fails here), folds
// every projection (LiveProjections), records every session the log still has open as
// ended ("lost": its process died without closing it), registers every las__ tool and call guard
// (tools/las_tools.h), and builds the Federation and the Gateway. Start() federates once
// (tools/federation.h); after `ready`, any number of MCP sessions (McpEndpoint with
// gateway() as backend, options from NewEndpointOptions) may be served on the same loop:
// `las serve` serves one on stdio, `las daemon` one per socket connection, `las list`
// none. Shutdown() ends every child (process group) and reaps it.
//
// Errors: Open() returns the log's open error (kIo, kCorruption, kInvalidInput for a foreign
// directory) or the fold's error. A log failure during federation is in status().
//
// Ownership and threading: the caller owns the io_context, which must outlive the core; the
// core owns the log and everything built on it, and one worker thread that checks large
// arguments off the loop (GatewayOptions::run_off_loop), joined when the core is destroyed. Construct, Start, query and Shutdown on the
// loop's thread (or before the loop runs). Destroy after the loop stopped running.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "tools/mcp_endpoint.h"
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
class LiveProjections;
class LoopAppender;

class ServerCore {
 public:
  static Result<std::unique_ptr<ServerCore>> Open(boost::asio::io_context& io,
                                                  const ServerOptions& options);
  ~ServerCore();
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  // Federates (once); `ready` runs on the loop when every surface has settled.
  void Start(std::function<void()> ready);
  // The federation's status (a log failure while federating is fatal to the server), else
  // the log's first failure while serving (LoopAppender::failure(); also told on stderr as it
  // happens): ok while the log took every append. A corruption comes WithRestoreAdvice.
  Status status() const;

  // `stop` runs once, on the loop, when the log fails while serving. The log then refuses
  // every append, and the live projections may hold the failed write's events (folded, never
  // durable): the gateway refuses every later call, reads included, and the server must
  // end (exit 9) so that a restart reopens the log. Set before Start.
  void OnLogFailure(std::function<void()> stop);
  // A failure of the log met by an append made on the loop outside the gateway (the
  // operator channel): handled as the gateway's own — it becomes status(), `stop` runs.
  void NoteLogFailure(const Status& failure);

  // After the loop has stopped: the log's memtables written to table files, as closing
  // does. Ok when that worked or the log had failed already (status() says so); else kIo
  // (a full disk at exit: the events are safe in the WAL, and the next start recovers
  // them), so that the server does not end with exit 0 and nothing said (probe N4).
  Status FlushLogAtExit();

  Federation& federation();
  Gateway& gateway();
  log::EventLog& log();
  LiveProjections& live();  // the server's live projections (loop thread only)
  LoopAppender& appender();  // how the loop appends (loop thread only)
  const ServerOptions& options() const;

  // Options for one new client session, after Start's `ready`: default agent id from
  // LAS_AGENT_ID (else "default"); when Skarbiec is admitted, the only agent allowed is
  // SKARBIEC_MCP_AGENT_ID (unset: every session is refused); random session ids;
  // `transport` is recorded in SessionOpened.
  EndpointOptions NewEndpointOptions(std::string transport) const;

  // Ends every child (SIGTERM to its group, then SIGKILL) and reaps; pending child calls
  // fail and are recorded as completed. `done` runs on the loop.
  void Shutdown(std::function<void()> done);

 private:
  struct Parts;
  explicit ServerCore(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace las::tools
