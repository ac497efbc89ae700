// Whether two operator-given paths name one file, so a verb that writes a file can refuse
// an output path that is one of its other files (`las release sign --out` naming the
// secret key, `las release keygen` given one path for two keys) before writing anything.
// Thread safety: free functions; they read the filesystem, so the answer holds for that
// moment only (the operator's own files; a race with another writer is not defended).
#pragma once

#include <span>
#include <string>

#include "base/status.h"

namespace las::cli {

// True if `a` and `b` name one file:
// - the same lexically normalized absolute path (`./x`, `d/../x`; a file not yet made);
// - both exist (symlinks followed) with the same device and inode (a symlink, a hard link);
// - neither exists, the same name in one directory by device and inode (a symlinked
//   directory, for files about to be created).
// Conservative: `link/..` is normalized lexically, so it may report "same" for two
// different files, never "different" for one.
bool SameFile(const std::string& a, const std::string& b);

// A path a verb reads or writes, and how the operator gave it ("--out", "the trust store").
struct NamedPath {
  std::string role;
  std::string path;  // "" = not given; never compared
};

// Ok unless `written` is the same file (SameFile) as one of `others`; then InvalidArgument
// naming both roles and the path, in one line. An empty `written.path` is Ok.
Status RefuseSameFile(const NamedPath& written, std::span<const NamedPath> others);

}  // namespace las::cli
