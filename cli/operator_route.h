// The second half of a `las` verb that changes the log (`las sources enable|disable`,
// `las grant`, `las revoke`, `las rules add|forget`, `las onboarding mark|reset|check`):
// the verb first tries to append directly as the log's writer; only when that found the
// log locked does it call ThroughServer, which sends the change to the running server of
// that log over its operator channel (tools/operator_client.h). Never both.
//
// Returns the server's result object (JSON text), the server's refusal as its status, or,
// when no server answers on the daemon socket nor on the embedded server's operator socket,
// `locked` (the direct path's kLocked, exit 7) with the socket looked for added; when the
// socket cannot be used at all, that error's own code (kInvalidArgument for an unusable
// XDG_RUNTIME_DIR, kDenied for an unsafe socket or directory) — nothing is sent then.
// Threading: blocking.
#pragma once

#include <string>

#include "base/result.h"

namespace las::cli {

Result<std::string> ThroughServer(const std::string& log_dir, const Status& locked,
                                  const std::string& method, const std::string& params_json);

// Whether a server answers the operator channel of `log_dir` (an operator hello only): ok,
// or the status ThroughServer would report.
Status ServerAnswers(const std::string& log_dir, const Status& locked);

// What a verb's --help says of the way through the server, in parentheses after "Through
// the running server when one holds the log".
inline constexpr const char* kThroughServerExits =
    "exit 7 if the log is held and no server listens on its socket; exit 8 if the socket or "
    "its directory is not this user's alone; exit 9 if the server does not answer within "
    "30 s: the change may still be made";

}  // namespace las::cli
