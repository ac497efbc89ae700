// Reporting a failed command: "las VERB: CODE: message" on stderr, and the exit code for
// the status (cli/exit_codes.h). For the verbs' error paths; thread-compatible (stdio).
#pragma once

#include <cstdio>

#include "base/status.h"
#include "cli/exit_codes.h"

namespace las::cli {

// Prints `status` for `verb` on stderr; returns ExitCodeFor(status).
inline int Fail(const char* verb, const Status& status) {
  std::fprintf(stderr, "las %s: %s\n", verb, status.ToString().c_str());
  return ExitCodeFor(status);
}

}  // namespace las::cli
