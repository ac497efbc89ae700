// The `las serve` side of a shared daemon: bridges this process's stdin and stdout to one
// daemon connection, byte for byte (the daemon frames and bounds the lines; the bridge adds
// nothing to stdout). First it sends the bridge hello (tools/daemon_connection.h) carrying
// `agent_id` (LAS_AGENT_ID of this `las serve`; empty: the daemon's default).
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
// Threading: blocking, on the caller's thread (poll(2) over stdin and the connection).
#pragma once

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace las::tools {

Status RunBridge(UniqueFd connection, const std::string& agent_id);

// The hello line (without '\n') for `agent_id`.
std::string BridgeHelloLine(const std::string& agent_id);

}  // namespace las::tools
