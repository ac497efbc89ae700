// Writing Las's own files outside the log — the operator's release files (`las release`:
// keys, trust stores, manifests, signatures), the kept heads (tools/kept_head_file.h).
// Every write is durable (fsync of the file and of its directory) and either
// creates a new file without ever replacing one, or replaces a file atomically.
//
// Errors (Status): Conflict if CreateNewFile finds the path taken (also a dangling
// symlink: O_EXCL never follows one); InvalidArgument if a file to replace is a
// directory, a symbolic link or anything else but a regular file, or for a path that names no file (a part of it a file, a loop, too long:
// base/path_error.h); NotFound if the directory does not exist; Denied for EACCES/EPERM;
// Io otherwise. Messages name the path and errno text, never content.
// Thread safety: free functions; StagedFile as below.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>

#include "base/result.h"

namespace las {

// Creates `path` with O_CREAT|O_EXCL|O_NOFOLLOW and exactly `mode`, writes `bytes`,
// fsyncs it and its directory. On any failure after creating it, removes it again.
Status CreateNewFile(const std::string& path, const std::string& bytes, mode_t mode);

// A replacement for `path`, written and fsynced beside it but not yet in place, so a verb
// can prepare every file it writes before it replaces any (`las release sign`: a failure
// then leaves the old manifest and signature a matching pair). Until Commit, `path` is
// untouched; a StagedFile destroyed without a successful Commit removes its temporary.
// Move-only; not thread-safe.
class StagedFile {
 public:
  // Writes `bytes` with exactly `mode` to a new temporary file in `path`'s directory.
  // Fails before writing anything if `path` is a directory, a symbolic link or another
  // non-regular file such as a FIFO or a device node (InvalidArgument: the rename would
  // replace that entry, not write through it); NotFound
  // if the directory does not exist, Denied if it may not be written.
  static Result<StagedFile> Stage(const std::string& path, const std::string& bytes, mode_t mode);

  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  ~StagedFile();

  // Renames the temporary over `path` (a symlink put there since Stage is replaced, not
  // followed) and fsyncs the directory. Call at most once.
  Status Commit();

 private:
  StagedFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  std::string path_;
  std::string temp_;  // "" once renamed (or moved from): nothing left to remove
};

// Ok when `path` is missing or a regular file (not a symlink, directory, FIFO or device):
// what Stage checks first, for a command to ask before work that would be lost.
Status CheckReplaceable(const std::string& path);

// Replaces (or creates) `path`: Stage then Commit. A crash leaves the old or the new file,
// never a mix.
Status ReplaceFileAtomically(const std::string& path, const std::string& bytes, mode_t mode);

// Creates the directory that holds `path` and any missing parents, each new one with mode
// 0700 (release material is the operator's own; base/private_directories.h). Ok if it
// already is a directory.
Status EnsureParentDirectory(const std::string& path);

// CheckPrivateDirectoriesCanBeMade for the directory that holds `path`: nothing is made.
Status CheckParentDirectoryCanBeMade(const std::string& path);

// True if something (a file, a directory, a dangling symlink) exists at `path`.
bool PathExists(const std::string& path);

}  // namespace las
