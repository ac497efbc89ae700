// Status: the error value that crosses every module boundary in Las.
//
// A Status is either ok or carries one stable Code plus a human message. Codes are part
// of Las's contract (CLI exit codes and machine-readable errors derive from them); add
// new ones only at the end and never renumber. Exceptions never cross a module's face:
// functions that can fail return Status or Result<T> (base/result.h).
//
// Thread safety: a Status is a plain value; copies are independent.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace las {

enum class Code : int {
  kOk = 0,
  kInvalidArgument = 1,  // bad input from a client, a flag, a file
  kNotFound = 2,
  kCorruption = 3,       // stored data fails its checks (hash chain, format)
  kIo = 4,               // the operating system or RocksDB failed
  kDenied = 5,           // policy or permissions refuse the operation
  kLocked = 6,           // another writer holds the resource
  kUnsupported = 7,      // e.g. a log written by a newer format version
  kConflict = 8,         // an optimistic check (sequence, version) lost
  kNotALog = 9,          // a directory that exists but is not a Las log
};

// Stable lowercase name of a code, e.g. "corruption"; used in JSON output.
std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "corruption: event 12: hash mismatch", or "ok".
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
inline Status IoError(std::string m) { return {Code::kIo, std::move(m)}; }
inline Status Denied(std::string m) { return {Code::kDenied, std::move(m)}; }
inline Status Locked(std::string m) { return {Code::kLocked, std::move(m)}; }
inline Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
inline Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }

}  // namespace las
