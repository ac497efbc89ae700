#include "base/status.h"

namespace las {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kNotFound: return "not_found";
    case Code::kCorruption: return "corruption";
    case Code::kIo: return "io";
    case Code::kDenied: return "denied";
    case Code::kLocked: return "locked";
    case Code::kUnsupported: return "unsupported";
    case Code::kConflict: return "conflict";
    case Code::kNotALog: return "not_a_log";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out(CodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

}  // namespace las
