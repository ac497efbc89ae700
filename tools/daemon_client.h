// DaemonClient: one MCP session's worth of requests to the running daemon of a log, as a
// bridged client makes them: the hello, `initialize`, the requests, the end of input. The
// `las` verbs that change what a running daemon serves (`las sources enable|disable`, `las
// grant`, `las onboarding mark`) do not use it: they go through the operator channel
// (tools/operator_client.h). Tests use it to drive a daemon as one client (probe GT2: this
// header said otherwise).
//
// RunDaemonSession connects (tools/daemon_socket.h: owner and peer uid checked), sends the
// bridge hello with `agent_id`, `initialize` (id 0, clientInfo `client_name`),
// `notifications/initialized`, then each request in order (each a JSON-RPC request line
// whose id is the caller's), ends its input, and returns every response to those requests,
// in arrival order, as raw JSON lines (the initialize answer is left out). The daemon
// answers all of them before it closes the connection. Every request is sent before any
// answer is read: the daemon stops reading a client that holds 8 MiB of unread answers, so
// a request list whose answers exceed that blocks for good. For short lists only.
//
// Errors: kNotFound when no daemon serves `log_dir` (the caller then works embedded);
// kDenied for an unsafe socket; kIo when the connection fails or the daemon refuses the
// session (the initialize answer is an error).
// Threading: blocking, on the caller's thread.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace las::tools {

struct DaemonSessionRequest {
  std::string log_dir;
  std::string xdg_runtime_dir;  // the value of XDG_RUNTIME_DIR; "" when unset
  std::string agent_id;         // "" : the daemon's default
  std::string client_name = "las-cli";
  std::vector<std::string> requests;  // JSON-RPC request lines, without '\n'
};

Result<std::vector<std::string>> RunDaemonSession(const DaemonSessionRequest& request);

// A tools/call request line: id `id`, tool `name`, arguments (a JSON object's text).
std::string ToolCallRequestLine(int id, const std::string& name,
                                const std::string& arguments_json);

}  // namespace las::tools
