// Directories for Las's private files (the log, release files, keys): every directory that
// has to be made on the way is made mode 0700, whatever the umask (exactly 0700: also
// under a umask that clears owner bits, such as 0177). Made with the umask
// instead (0777 under `umask 000`), a missing ~/.local/state/las could be replaced by
// another local user, who would then own what Las writes inside (probe AU1). Directories
// that already exist are left as they are: the checks of the files inside decide about them.
//
// Thread safety: a free function; concurrent calls for the same path are fine (a directory
// another made first counts as there).
#pragma once

#include <string>

#include "base/result.h"

namespace las {

// Makes `dir` and each missing directory above it (0700). Returns whether `dir` itself was
// made by this call. Errors: kInvalidArgument if a file (not a directory) stands at `dir`
// or above it, or for another path mistake (base/path_error.h: a loop, a name too long);
// kDenied (EACCES, EPERM); kIo otherwise (a read-only file system, no space), the message
// naming the directory and the system's reason.
Result<bool> MakePrivateDirectories(const std::string& dir);

// Ok when MakePrivateDirectories(dir) would not fail for a file standing at `dir` or above
// it (kInvalidArgument, the same message) or for want of permission to make the first
// missing directory (kDenied, the same message), making nothing: a command that makes
// several directories checks each first, so that a refusal leaves none made (probes GV2,
// GW2).
Status CheckPrivateDirectoriesCanBeMade(const std::string& dir);

}  // namespace las
