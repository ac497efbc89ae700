// PathExposure: whether anyone but this user (and root) can change what a path names — the
// file (or directory) itself, a directory its resolution reads, or a symbolic link on the
// way — and the operator's note saying so.
//
// A file others may write is changed in place; a directory on the way that others may
// write lets them rename another file into its place, whatever the file's own mode, unless
// the directory is sticky (probe CO6) — except the path's own last directory when the path
// names a directory, whose entries Las makes: there sticky is not enough; and a link's
// owner retargets it at will, even in a sticky directory (probe EU2). Root's own files and
// directories count as this user's: root can change anything anyway. Group write counts
// only when the group holds someone else: a user private group (Debian's one group per
// user, with umask 002) is this user alone (probe GA1).
//
// Thread safety: free functions; they read the file system (stat, lstat, readlink).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace las {

struct PathExposure {
  enum class Kind {
    kNone,           // only this user (or root) can change it
    kOwner,          // the file or directory itself is another user's
    kMode,           // the file or directory itself may be written by others (group or all)
    kForeignLink,    // resolved through a symbolic link another user owns (`where`)
    kOpenDirectory,  // resolved through a directory others may write (`where`, `mode`)
  };
  Kind kind = Kind::kNone;
  std::string where;
  mode_t mode = 0;
  bool other_owner = false;  // kOpenDirectory: the directory is another user's too
};

// What can change `path`. A missing path is judged by the directories that lead to where
// it would be; the last existing directory then decides as a directory of its own would.
PathExposure ExposureOf(const std::string& path);

// The operator's note on `subject` (e.g. "the registry /etc/las/registry.json") exposed as
// `exposure`, `stake` what whoever may write it could do (e.g. "decide which signed
// surfaces run"), with what to do; nullopt for kNone.
std::optional<std::string> ExposureNote(std::string_view subject, const PathExposure& exposure,
                                        std::string_view stake);

// ExposureNote(subject, ExposureOf(path), stake).
std::optional<std::string> PathExposureNote(const std::string& path, std::string_view subject,
                                            std::string_view stake);

}  // namespace las
