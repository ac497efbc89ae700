// A path made absolute for a message or a command Las prints, or for a comparison.
//
// Thread safety: a pure function of the path and the current directory.
#pragma once

#include <string>

namespace las {

// `path` against the current directory, lexically normal ("a/./b/../c" -> "/cwd/a/c"; no
// symlink resolved); `path` as given when it cannot be made absolute (no current directory).
std::string AbsolutePath(const std::string& path);

}  // namespace las
