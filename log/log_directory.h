// Who may own a log directory and who else may reach it: the rule a log's writer applies
// before it writes (log/FORMAT.md §Directory), in this one place. EventLog::Open refuses
// what CheckLogDirectory refuses; a server start reports what LogDirectoryNote notes.
//
// The events carry call arguments, private state and messages, and RocksDB makes the log's
// files 0644: the directory's mode is what keeps them private. Whoever may write the
// directory can delete or swap its table files (the chain then fails to verify, or an
// older copy is served), or plant a file where RocksDB will write. Followers (`las replay`,
// `las inspect`) only read and apply no rule: an auditor may read another user's log.
//
// Thread safety: free functions, safe from any thread. They stat(2) the path as it is at
// the time of the call (a symbolic link to a directory is followed).
#pragma once

#include <optional>
#include <string>

#include "base/result.h"

namespace las::log {

enum class LogDirectoryAccess {
  kOwnerOnly,         // owned by this process's effective user, no group/other bits
  kReadableByOthers,  // the same, but group or others may read or search it
};

// The verdict on the existing directory `dir` for a writer run by this process's effective
// user. Ok: kOwnerOnly, or kReadableByOthers (allowed — an auditors' group may be
// intended — but worth a note). kDenied, with one line naming the fix: owned by another
// user (`chown`), or writable by group or others (`chmod 700`). kNotFound when it is
// missing, kNotALog when it is no directory, kIo when it cannot be stat'ed.
Result<LogDirectoryAccess> CheckLogDirectory(const std::string& dir);

// For a serving process's start, after the log opened: one line naming `dir` (escaped for
// a terminal), its mode and `chmod 700`, when CheckLogDirectory says kReadableByOthers;
// nullopt otherwise (also when the check fails: the open has said what matters).
std::optional<std::string> LogDirectoryNote(const std::string& dir);

}  // namespace las::log
