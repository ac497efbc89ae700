// What an errno from naming a path (stat, open, mkdir) means to the operator who gave it.
//
// A path that cannot name a file as written — a part that should be a directory is a file
// (ENOTDIR), a loop of symbolic links (ELOOP), a name or the whole path over the system's
// limits (ENAMETOOLONG) — is the operator's mistake, not a failing disk: a usage error
// (kInvalidArgument, exit 2) with a message that says what to fix, rather than an I/O error
// (exit 9) with the bare system text (probe AU8). One place, so every path Las is given
// (--log, --registry, the release files, XDG_RUNTIME_DIR) reads the same.
//
// Thread safety: free functions of their arguments.
#pragma once

#include <string>

#include "base/status.h"

namespace las {

// For ENOTDIR, ELOOP and ENAMETOOLONG: what is wrong with the path and what to do, followed
// by the system's text in parentheses, e.g. "a file stands where the path needs a
// directory; check the path (Not a directory)". "" for any other errno.
std::string PathMistake(int err);

// `subject` (the path, or "cannot open registry /x") followed by ": " and the reason:
// kInvalidArgument with PathMistake for the operator's path mistakes, kNotFound for
// ENOENT, kDenied for EACCES and EPERM, kIo with the system's text for anything else.
Status PathErrorStatus(int err, const std::string& subject);

}  // namespace las
