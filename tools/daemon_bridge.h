// The `las serve` side of a shared daemon: bridges this process's stdin and stdout to one
// daemon connection, byte for byte (the daemon frames and bounds the lines; the bridge adds
// nothing to stdout). First it sends the bridge hello (tools/daemon_connection.h) carrying
// `agent_id` (LAS_AGENT_ID of this `las serve`; empty: the daemon's default) and, with
// `waive_implicit_root` (this `las serve`'s LAS_DEFAULT_AGENT_GRANT is set and not "root"),
// that the session holds no implicit root grant: the daemon's own setting could only give
// it more than this environment asked for.
//
// When stdin ends, the bridge ends its half of the connection (shutdown SHUT_WR) and keeps
// copying the daemon's answers to stdout until the daemon closes the connection (after its
// calls in flight were answered and SessionClosed recorded); then it returns Ok.
//
// Errors: kIo when the daemon closes the connection or stops reading before stdin ended,
// or after it with a request of the client unanswered (it stopped or died; answers it
// sent before that are still copied to stdout; the bridge counts requests and answers by
// id), and kIo
// when stdout fails (the client is gone): the bridge closes the connection, and the daemon
// runs none of its later requests and lets the calls in flight finish and be logged.
//
// SIGTERM, SIGINT and SIGHUP (a supervisor, the SDK client closing with a call running, a
// closed terminal) end the bridge as they end an embedded `las serve`, not by their default
// action: `on_note` is told (one line), answers already received are written to stdout if
// it takes them without waiting, and the connection is closed — the daemon finishes and
// logs the calls in flight (SessionClosed `disconnect`). Ok when nothing the bridge owed the
// client was lost; kIo when a request was left unanswered or a received answer could not
// be written (their answers can no longer reach the client). The signals are blocked and
// read through a signalfd (tools/stop_signal_fd.h; an ignored one, as under nohup, stays
// ignored), and stay blocked when it returns: the process ends next.
//
// Threading: blocking, on the caller's thread (poll(2) over stdin, the connection and the
// signals); the signal mask it changes is the calling thread's.
#pragma once

#include <functional>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace las::tools {

Status RunBridge(UniqueFd connection, const std::string& agent_id, bool waive_implicit_root,
                 const std::function<void(const std::string& note)>& on_note = nullptr);

// The hello line (without '\n') for `agent_id`.
std::string BridgeHelloLine(const std::string& agent_id, bool waive_implicit_root = false);

}  // namespace las::tools
