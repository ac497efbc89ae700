#include "base/path_exposure.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "base/file_mode.h"

namespace las {
namespace {

bool Mine(uid_t uid) { return uid == ::geteuid() || uid == 0; }

// Whether the group `gid` holds no user but this one: a user private group, as Debian makes
// one per user (USERGROUPS_ENAB) and gives a umask of 002, so that the user's directories
// are group-writable with no one else in the group (probe GA1: every such directory was
// "open to others", and heads were no longer kept). Its only member is this user: no other
// name listed, and no other account with it as primary group. Asked once per group.
bool GroupIsOnlyMine(gid_t gid) {
  static std::mutex mutex;
  static std::map<gid_t, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(gid); it != known.end()) return it->second;
  const uid_t me = ::geteuid();
  bool only_mine = false;
  std::string my_name;
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(me, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    my_name = found->pw_name;
    only_mine = found->pw_gid == gid;  // a member by its primary group
  }
  std::vector<char> group_buffer(65536);
  struct group group_entry {};
  struct group* group = nullptr;
  if (::getgrgid_r(gid, &group_entry, group_buffer.data(), group_buffer.size(), &group) != 0 ||
      group == nullptr) {
    return known[gid] = false;
  }
  for (char** member = group->gr_mem; *member != nullptr; ++member) {
    if (*member != my_name) return known[gid] = false;
    only_mine = true;
  }
  // Another account whose primary group it is is in it too, unlisted.
  ::setpwent();
  while (struct passwd* account = ::getpwent()) {
    if (account->pw_gid == gid && account->pw_uid != me) {
      only_mine = false;
      break;
    }
  }
  ::endpwent();
  return known[gid] = only_mine;
}

// Whether anyone but this user (or root) may write through `st`'s mode.
bool OthersMayWrite(const struct stat& st) {
  if ((st.st_mode & S_IWOTH) != 0) return true;
  return (st.st_mode & S_IWGRP) != 0 && !GroupIsOnlyMine(st.st_gid);
}

// What the resolution of `path` reads, links followed as the kernel does (at most 40), in
// order; where resolution fails, what it read up to there.
struct PathWalk {
  std::vector<std::string> directories;  // each directory whose entries it reads
  std::vector<std::string> foreign_links;  // each link on the way not this user's or root's
  bool complete = false;                   // the whole path resolved
};

PathWalk WalkResolving(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path start = fs::path(path).is_absolute() ? fs::path(path) : fs::current_path(error) / path;
  std::deque<std::string> pending;
  for (const fs::path& part : start.relative_path()) pending.push_back(part.string());
  fs::path resolved = "/";
  PathWalk walk;
  std::vector<std::string>& dirs = walk.directories;
  int links = 0;
  while (!pending.empty()) {
    const std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      resolved = resolved.parent_path();
      continue;
    }
    if (std::find(dirs.begin(), dirs.end(), resolved.string()) == dirs.end()) {
      dirs.push_back(resolved.string());
    }
    const fs::path next = resolved / part;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) return walk;
    if (!S_ISLNK(st.st_mode)) {
      resolved = next;
      continue;
    }
    if (++links > 40) return walk;
    if (!Mine(st.st_uid)) walk.foreign_links.push_back(next.string());
    const fs::path target = fs::read_symlink(next, error);
    if (error) return walk;
    if (target.is_absolute()) resolved = "/";
    std::vector<std::string> parts;
    for (const fs::path& piece : target.relative_path()) parts.push_back(piece.string());
    pending.insert(pending.begin(), parts.begin(), parts.end());
  }
  walk.complete = true;
  return walk;
}

}  // namespace

PathExposure ExposureOf(const std::string& path) {
  PathExposure exposure;
  // A link another user planted comes first: what it leads to is theirs by choice, and
  // the remedy is the path, not that file (probe GA4).
  const PathWalk walk = WalkResolving(path);
  if (!walk.foreign_links.empty()) {
    exposure.kind = PathExposure::Kind::kForeignLink;
    exposure.where = walk.foreign_links.front();
    return exposure;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!Mine(st.st_uid)) {
      exposure.kind = PathExposure::Kind::kOwner;
      exposure.mode = st.st_mode;
      return exposure;
    }
    if (OthersMayWrite(st)) {
      exposure.kind = PathExposure::Kind::kMode;
      exposure.mode = st.st_mode;
      return exposure;
    }
  }
  for (size_t i = 0; i < walk.directories.size(); ++i) {
    const std::string& dir = walk.directories[i];
    struct stat dir_st {};
    if (::stat(dir.c_str(), &dir_st) != 0) continue;
    // Where a missing path would be made, others who may write could make it first: a
    // sticky bit does not stop that.
    const bool made_here = !walk.complete && i + 1 == walk.directories.size();
    const bool excused = (dir_st.st_mode & S_ISVTX) != 0 && !made_here;
    if (Mine(dir_st.st_uid) && (!OthersMayWrite(dir_st) || excused)) continue;
    exposure.kind = PathExposure::Kind::kOpenDirectory;
    exposure.where = dir;
    exposure.mode = dir_st.st_mode;
    exposure.other_owner = !Mine(dir_st.st_uid);
    return exposure;
  }
  return exposure;
}

std::optional<std::string> ExposureNote(std::string_view subject, const PathExposure& exposure,
                                        std::string_view stake) {
  const std::string who = std::string(subject);
  switch (exposure.kind) {
    case PathExposure::Kind::kNone: return std::nullopt;
    case PathExposure::Kind::kOwner:
      return who + " may be written by another user (its owner), who can then " +
             std::string(stake) + ": use one of your own";
    case PathExposure::Kind::kMode:
      return who + " may be written by others (mode " + FileModeText(exposure.mode) +
             "), who can then " + std::string(stake) + ": chmod go-w";
    case PathExposure::Kind::kForeignLink:
      return who + " is reached through a symbolic link another user owns (" + exposure.where +
             "): they can point it elsewhere and " + std::string(stake) +
             ": name it by a path only you control";
    case PathExposure::Kind::kOpenDirectory:
      return who + " is reached through a directory others may write (" + exposure.where +
             ", mode " + FileModeText(exposure.mode) +
             (exposure.other_owner ? ", owned by another user" : "") +
             "): they can put another in its place and " + std::string(stake) +
             ": keep it in a directory only you may write";
  }
  return std::nullopt;
}

std::optional<std::string> PathExposureNote(const std::string& path, std::string_view subject,
                                            std::string_view stake) {
  return ExposureNote(subject, ExposureOf(path), stake);
}

}  // namespace las
