#include "log/log_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_mode.h"
#include "base/path_error.h"
#include "base/printable_text.h"

namespace las::log {
namespace {

constexpr mode_t kWritableByOthers = S_IWGRP | S_IWOTH;
// Search (x) alone is enough to open the files, whose names are predictable (CURRENT,
// MANIFEST-000005, 000012.sst).
constexpr mode_t kReachableByOthers = S_IRGRP | S_IXGRP | S_IROTH | S_IXOTH;

// The rule itself, on what stat(2) said of `dir`.
Result<LogDirectoryAccess> Judge(const std::string& dir, const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return Status(Code::kNotALog, dir + ": not a directory");
  const uid_t me = ::geteuid();
  if (st.st_uid != me) {
    const std::string uid = std::to_string(me);
    return Denied(dir + ": the log directory belongs to uid " + std::to_string(st.st_uid) +
                  ", not to this user (uid " + uid +
                  "), and its owner could read, delete or replace the log's files; use a "
                  "directory of your own, or chown " + uid + " it and chmod 700 it");
  }
  if ((st.st_mode & kWritableByOthers) != 0) {
    return Denied(dir + ": the log directory is writable by group or others (mode " +
                  FileModeText(st.st_mode) + "), who could delete or replace the log's files; chmod 700 it");
  }
  if ((st.st_mode & kReachableByOthers) != 0) return LogDirectoryAccess::kReadableByOthers;
  return LogDirectoryAccess::kOwnerOnly;
}

}  // namespace

Result<LogDirectoryAccess> CheckLogDirectory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) return NotFound(dir + ": no such directory");
    if (error == EACCES) return Denied(dir + ": permission denied (" + std::strerror(error) + ")");
    return PathErrorStatus(error, dir);  // a path under a file or a loop is the operator's to fix
  }
  return Judge(dir, st);
}

std::optional<std::string> LogDirectoryNote(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return std::nullopt;
  auto access = Judge(dir, st);
  if (!access.ok() || *access != LogDirectoryAccess::kReadableByOthers) return std::nullopt;
  const std::string shown = EscapeForTerminal(dir);
  return "the log directory " + shown + " may be read by group or others (mode " +
         FileModeText(st.st_mode) + "): they can read every event (call arguments, private state, " +
         "messages); chmod 700 " + shown + " unless that is intended";
}

}  // namespace las::log
