// Writing the operator's release files (`las release`): keys, trust stores, manifests,
// signatures. Every write is durable (fsync of the file and of its directory) and either
// creates a new file without ever replacing one, or replaces a file atomically.
//
// Errors (Status): Conflict if CreateNewFile finds the path taken (also a dangling
// symlink: O_EXCL never follows one); NotFound if the directory does not exist; Denied
// for EACCES/EPERM; Io otherwise. Messages name the path and errno text, never content.
// Thread safety: free functions.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace las::cli {

// Creates `path` with O_CREAT|O_EXCL|O_NOFOLLOW and exactly `mode`, writes `bytes`,
// fsyncs it and its directory. On any failure after creating it, removes it again.
Status CreateNewFile(const std::string& path, const std::string& bytes, mode_t mode);

// Replaces (or creates) `path`: a temporary file in the same directory with exactly
// `mode`, write, fsync, rename over `path`, fsync of the directory. A crash leaves the
// old or the new file, never a mix. A symlink at `path` is replaced, not followed.
Status ReplaceFileAtomically(const std::string& path, const std::string& bytes, mode_t mode);

// Creates `dir` and any missing parents, each new one with mode 0700 (release material
// is the operator's own). Ok if it already is a directory.
Status EnsureDirectory(const std::string& dir);
// EnsureDirectory of the directory that holds `path`.
Status EnsureParentDirectory(const std::string& path);

// True if something (a file, a directory, a dangling symlink) exists at `path`.
bool PathExists(const std::string& path);

}  // namespace las::cli
