// DaemonConnection: one client connection to `las daemon` — one MCP session (LineSession,
// transport "daemon") over newline-delimited JSON both ways, lines bounded as on stdio.
//
// The first line may be the bridge's hello, a notification
//   {"jsonrpc":"2.0","method":"las/bridge","params":{"agentId":"..."}}
// that `las serve` sends before the client's own lines: it sets the session's default
// agent id (what LAS_AGENT_ID is to an embedded `las serve`). It is consumed here and
// never reaches the MCP endpoint. It grants nothing a same-user peer could not already
// claim in `initialize`. A first line that is the operator hello (a `las/operator`
// request) makes the connection an operator connection instead (tools/operator_channel.h):
// no MCP session, only the fixed operator requests; it closes once its input ended and
// every answer was written.
//
// With `operator_only` (the log's operator socket: tools/operator_listener.h)
// only an operator connection is accepted: any other first line (or an over-long one) is
// answered with a JSON-RPC error -32600 (null id, static text), nothing more is read, and
// the connection closes once that answer is written. No MCP session is ever opened there.
// A connection there that sends no line for 5 s — before its first line or after any
// later one — is closed (idle connections must not fill the socket's connection limit and
// keep the operator out). An operator connection on either socket is held to that from
// its hello on, and its answers get 5 s to be read once its input ended (or stopped being
// read): a peer that reads none has them dropped and its connection closed.
//
// Ending: at EOF (or after StopReading()) the session finishes its calls — a client that
// disconnected mid-call leaves the call to finish and be logged; its answer is dropped, and
// when `on_detach` agrees (the daemon bounds how many may), its socket is closed at once so
// that a call that never ends does not hold a connection slot for it (probe V3) —
// then records SessionClosed with reason "disconnect" (the peer was gone before every answer
// was written, or it had hung up entirely), "shutdown" (the daemon stopped reading), or
// "eof" (the client ended its input and received everything), and finally calls
// `on_closed` (posted; the daemon may then release its reference).
//
// Ownership and threading: held by shared_ptr (pending I/O holds a reference); everything
// on the loop's thread. The core must outlive the connection.
#pragma once

#include <functional>
#include <memory>

#include "base/unique_fd.h"

namespace boost::asio {
class io_context;
}

namespace las::tools {

class AnswerBudget;
class PartialLineBudget;
class TurnQueue;
class ServerCore;

// What all of a daemon's connections share (either may be null: none); each must outlive
// the connections.
struct ConnectionBudgets {
  PartialLineBudget* partial_lines = nullptr;  // tools/partial_line_budget.h
  AnswerBudget* answers = nullptr;             // tools/answer_budget.h
  TurnQueue* turns = nullptr;                  // tools/turn_queue.h (null: posted as they come)
};

class DaemonConnection {
 public:
  static std::shared_ptr<DaemonConnection> Start(boost::asio::io_context& io, UniqueFd fd,
                                                 ServerCore& core, size_t max_line_bytes,
                                                 ConnectionBudgets budgets,
                                                 std::function<void()> on_closed,
                                                 bool operator_only = false,
                                                 std::function<bool()> on_detach = nullptr);
  virtual ~DaemonConnection() = default;
  // The daemon is stopping: read no more from this client (lines read but not yet run
  // are dropped); calls in flight finish, and the connection closes once their answers
  // are written.
  virtual void StopReading() = 0;
  // The daemon must end now (a second signal): StopReading, and answers not yet written
  // are dropped, so a client that does not read cannot keep the daemon up.
  virtual void Abandon() = 0;
  // Whether it holds operator answers until the log has their changes on disk: a peer
  // waiting for those is not idle, nor failing to read (probes DM1, DM2).
  virtual bool AwaitsTheLog() const = 0;
};

}  // namespace las::tools
