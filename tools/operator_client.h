// OperatorClient: the CLI's side of a running server's operator channel
// (tools/operator_channel.h). `las sources enable|disable`, `las grant`, `las revoke`,
// `las rules add|forget` and `las onboarding mark|reset|check` first try to append
// directly; only when the log's writer lock is held (kLocked) do they send their change
// here, so a change is never both appended directly and sent.
//
// SendOperatorRequest connects to the server of `log_dir` — the log's operator-only socket
// (a daemon's or an embedded `las serve`'s), else (also when that socket answers that it
// is at its connection limit, kOperatorBusyLine) the daemon's clients' socket
// (tools/daemon_socket.h: the socket's owner and the peer's uid checked on each) — sends the operator hello and the one request, and
// returns the answer's `result` object as JSON text.
//
// Errors: kNotFound when no server answers on either socket (none running, stale sockets,
// or no runtime directory; the daemon socket's own error is the one returned) — the caller
// then reports the lock; kLocked when the operator socket is at its limit and there is no
// clients' socket (nothing was sent on); kDenied for an unsafe
// socket or directory; kIo when the connection fails, the answer is not one or does not
// come within `timeout_ms`; a refusal
// by the server comes back as its own status (code from the error's data.status, message
// from the server: kNotFound, kConflict, kInvalidArgument, ...).
// Threading: blocking, on the caller's thread.
#pragma once

#include <string>

#include "base/result.h"

namespace las::tools {

struct OperatorRequest {
  std::string log_dir;
  std::string xdg_runtime_dir;  // the value of XDG_RUNTIME_DIR; "" when unset
  std::string method;           // e.g. "las/sources.disable"
  std::string params_json;      // a JSON object's text
  // How long to wait for the answer (a stopped server would keep the CLI forever); the
  // change may still be made after it: kIo says so.
  int timeout_ms = 30'000;
};

// `reached` (optional) is set to whether a server accepted the connection: false means
// the error is about reaching one (no server, stale socket, unsafe socket), true that the
// server (or the exchange with it) failed or refused.
Result<std::string> SendOperatorRequest(const OperatorRequest& request, bool* reached = nullptr);

}  // namespace las::tools
