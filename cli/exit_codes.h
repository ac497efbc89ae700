// The `las` exit codes: stable, documented in docs/CLI.md. Each error code of a Status
// maps to its own exit code so scripts can tell "tampered" from "no log here".
#pragma once

#include "base/status.h"

namespace las::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a check failed (e.g. `las check` found a problem)
inline constexpr int kExitUsage = 2;    // bad flags or arguments

// 0 for ok; 2 invalid argument; 3 corruption; 4 not found; 5 not a log; 6 unsupported
// (newer format); 7 locked; 8 denied; 9 I/O; 10 conflict.
int ExitCodeFor(const Status& status);

}  // namespace las::cli
