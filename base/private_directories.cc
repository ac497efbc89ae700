#include "base/private_directories.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/path_error.h"

namespace las {
namespace {

// "File exists" would hide the mistake: a file (or a FIFO, a dangling symlink) stands where
// a directory was asked for (probe AU8).
Status NotADirectory(const std::string& dir) {
  return InvalidArgument(dir + " is not a directory, and a directory is needed there; give "
                         "the path of a directory, or of one to be made");
}

}  // namespace

Result<bool> MakePrivateDirectories(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::is_directory(dir, error)) return false;
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty() && parent != std::filesystem::path(dir)) {
    auto above = MakePrivateDirectories(parent.string());
    if (!above.ok()) return above.status();
  }
  if (::mkdir(dir.c_str(), 0700) == 0) {
    // Exactly 0700: a umask that clears owner bits too (0177, say) would leave a directory
    // its owner cannot enter (probe FP1: heads/ made 0600 turned the kept head off). Never
    // wider in between: a umask only takes bits away from the 0700 asked for.
    if (::chmod(dir.c_str(), 0700) != 0) {
      return PathErrorStatus(errno, "setting mode 0700 on directory " + dir);
    }
    return true;
  }
  const int failure = errno;
  if (failure == EEXIST && std::filesystem::is_directory(dir, error)) return false;
  if (failure == EEXIST) return NotADirectory(dir);
  const std::string subject = "creating directory " + dir;
  // ENOENT with every parent there (a directory under /proc) is the system's refusal.
  if (failure == ENOENT) return IoError(subject + ": " + std::strerror(failure));
  // A path under a file, a loop, a name too long: the operator's to fix.
  return PathErrorStatus(failure, subject);
}

Status CheckPrivateDirectoriesCanBeMade(const std::string& dir) {
  std::filesystem::path below;  // the missing directory under `at`, the first one to make
  for (std::filesystem::path at(dir);;) {
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(at, error);
    if (status.type() == std::filesystem::file_type::directory) {
      // The first one to make needs write and search permission here (probe GW2: a refusal
      // for it came after the directories of another path were made).
      if (!below.empty() && ::access(at.c_str(), W_OK | X_OK) != 0) {
        return PathErrorStatus(errno, "creating directory " + below.string());
      }
      return Status::Ok();
    }
    if (status.type() != std::filesystem::file_type::not_found && !error) return NotADirectory(at.string());
    const std::filesystem::path parent = at.parent_path();
    if (parent.empty() || parent == at) return Status::Ok();  // the making says the rest
    below = at;
    at = parent;
  }
}

}  // namespace las
