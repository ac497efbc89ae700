// The second half of a `las` verb that changes the log (`las sources enable|disable`,
// `las grant`, `las revoke`, `las rules add|forget`, `las onboarding mark|reset|check`):
// the verb first tries to append directly as the log's writer; only when that found the
// log locked does it call ThroughServer, which sends the change to the running server of
// that log over its operator channel (tools/operator_client.h). Never both.
//
// Returns the server's result object (JSON text), the server's refusal as its status, or
// `locked` itself (the direct path's kLocked) when no server answers on the daemon socket
// nor on the embedded server's operator socket — the
// verb then reports the lock as before (exit 7).
// Threading: blocking.
#pragma once

#include <string>

#include "base/result.h"

namespace las::cli {

Result<std::string> ThroughServer(const std::string& log_dir, const Status& locked,
                                  const std::string& method, const std::string& params_json);

// Whether a server answers the operator channel of `log_dir` (an operator hello only).
bool ServerAnswers(const std::string& log_dir);

}  // namespace las::cli
