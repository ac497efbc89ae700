#include "base/durable_files.h"

#include "base/path_error.h"
#include "base/private_directories.h"
#include "base/result.h"
#include "base/write_fully.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace las {
namespace {

Status Failure(const std::string& what, const std::string& path) {
  const int error = errno;
  if (error == EEXIST) return Conflict(path + " already exists; refusing to overwrite it");
  // A path under a file, a loop, a name too long: the operator's to fix (exit 2, probe AU8).
  return PathErrorStatus(error, what + " " + path);
}

std::string DirectoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failure("opening directory", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Failure("fsync of directory", dir);
  return Status::Ok();
}

// Writes, sets the mode exactly (independent of the umask), fsyncs and closes `fd`.
Status FillAndClose(int fd, const std::string& bytes, mode_t mode, const std::string& path) {
  Status status = ::fchmod(fd, mode) == 0 ? Status::Ok() : Failure("chmod", path);
  if (status.ok() && WriteFully(fd, bytes) != 0) status = Failure("writing", path);
  if (status.ok() && ::fsync(fd) != 0) status = Failure("fsync", path);
  if (::close(fd) != 0 && status.ok()) status = Failure("closing", path);
  return status;
}

}  // namespace

Status EnsureParentDirectory(const std::string& path) {
  return MakePrivateDirectories(DirectoryOf(path)).status();
}

Status CheckParentDirectoryCanBeMade(const std::string& path) {
  return CheckPrivateDirectoriesCanBeMade(DirectoryOf(path));
}

bool PathExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

Status CreateNewFile(const std::string& path, const std::string& bytes, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return Failure("creating", path);
  Status status = FillAndClose(fd, bytes, mode, path);
  if (status.ok()) status = SyncDirectory(DirectoryOf(path));
  if (!status.ok()) ::unlink(path.c_str());
  return status;
}

Status CheckReplaceable(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, error);
  if (std::filesystem::is_directory(status)) {
    return InvalidArgument(path + " is a directory; give the path of the file to write");
  }
  // The rename would replace the link and leave its target as it was.
  if (std::filesystem::is_symlink(status)) {
    return InvalidArgument(path + " is a symbolic link; give the path of the file it names");
  }
  // A FIFO, socket or device node is not a file to replace (probe EW3: `las release sign
  // --out` turned a FIFO and a device node into regular files; run as root, /dev/null).
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return InvalidArgument(path + " is not a regular file; give the path of a file to write");
  }
  return Status::Ok();
}

Result<StagedFile> StagedFile::Stage(const std::string& path, const std::string& bytes, mode_t mode) {
  // Checked now, not at the rename: by then another staged file may be in place.
  LAS_RETURN_IF_ERROR(CheckReplaceable(path));
  const std::string dir = DirectoryOf(path);
  std::string temp = dir + "/." + std::filesystem::path(path).filename().string() + ".tmp-XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);  // O_EXCL, in the target's directory
  if (fd < 0) return Failure("creating a temporary file in", dir);
  StagedFile staged(path, temp);  // from here on, removed again on failure
  LAS_RETURN_IF_ERROR(FillAndClose(fd, bytes, mode, temp));
  return staged;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : path_(std::move(other.path_)), temp_(std::exchange(other.temp_, std::string())) {}

StagedFile::~StagedFile() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Status StagedFile::Commit() {
  if (::rename(temp_.c_str(), path_.c_str()) != 0) return Failure("renaming onto", path_);
  temp_.clear();
  return SyncDirectory(DirectoryOf(path_));
}

Status ReplaceFileAtomically(const std::string& path, const std::string& bytes, mode_t mode) {
  Result<StagedFile> staged = StagedFile::Stage(path, bytes, mode);
  if (!staged.ok()) return staged.status();
  return staged->Commit();
}

}  // namespace las
