#include "cli/exit_codes.h"

namespace las::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case Code::kOk: return kExitOk;
    case Code::kInvalidArgument: return kExitUsage;
    case Code::kCorruption: return 3;
    case Code::kNotFound: return 4;
    case Code::kNotALog: return 5;
    case Code::kUnsupported: return 6;
    case Code::kLocked: return 7;
    case Code::kDenied: return 8;
    case Code::kIo: return 9;
    case Code::kConflict: return 10;
  }
  return kExitFailure;
}

}  // namespace las::cli
