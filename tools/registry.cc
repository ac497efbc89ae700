#include "tools/registry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/file_mode.h"
#include "base/printable_text.h"
#include "trust/manifest.h"
#include "trust/secure_file.h"
#include "trust/strict_json.h"

namespace las::tools {

std::string_view PolicyName(SurfacePolicy policy) {
  switch (policy) {
    case SurfacePolicy::kOrdinary: return "ordinary";
    case SurfacePolicy::kSkarbiec: return "skarbiec";
    case SurfacePolicy::kFinance: return "finance";
    case SurfacePolicy::kTama: return "tama";
    case SurfacePolicy::kWarsztat: return "warsztat";
  }
  return "ordinary";
}

const std::vector<KnownSurface>& KnownSurfaces() {
  static const std::vector<KnownSurface> known = {
      {"brama", "model gateway: detect and list models", SurfacePolicy::kOrdinary},
      {"byk", "founder strategy", SurfacePolicy::kOrdinary},
      {"echo", "growth and content dashboard", SurfacePolicy::kOrdinary},
      {"finance", "proposal-only finance", SurfacePolicy::kFinance},
      {"lem", "research registry and provenance", SurfacePolicy::kOrdinary},
      {"most", "communications health and diagnostics", SurfacePolicy::kOrdinary},
      {"probierz", "cross-platform quality", SurfacePolicy::kOrdinary},
      {"skarbiec", "capability broker", SurfacePolicy::kSkarbiec},
      {"stado", "compute status, cost, quota and schedule", SurfacePolicy::kOrdinary},
      {"tama", "hook catalogue and inspection", SurfacePolicy::kTama},
      {"warsztat", "repository proposal workflow", SurfacePolicy::kWarsztat},
      {"weles", "browser executor", SurfacePolicy::kOrdinary},
  };
  return known;
}

const KnownSurface* FindKnownSurface(std::string_view name) {
  for (const auto& known : KnownSurfaces()) {
    if (known.name == name) return &known;
  }
  return nullptr;
}

const ConfiguredSurface* Registry::Find(std::string_view name) const {
  // Sorted by name: a registry file may configure tens of thousands (`las check` asks once
  // per surface).
  auto it = std::lower_bound(surfaces.begin(), surfaces.end(), name,
                             [](const ConfiguredSurface& s, std::string_view n) { return s.name < n; });
  return it != surfaces.end() && it->name == name ? &*it : nullptr;
}

Registry DefaultRegistry() {
  Registry registry;
  registry.built_in = true;
  for (const auto& known : KnownSurfaces()) {
    registry.surfaces.push_back({std::string(known.name), std::string(known.role), known.policy});
  }
  return registry;
}

std::string RegistryName(const Registry& registry) {
  if (!registry.built_in) return "the registry";
  return "the built-in registry (no --registry file given: the seed's twelve surfaces; a "
         "registry file configures others, docs/REGISTRY.md)";
}

namespace {

Status Invalid(const std::string& path, const std::string& what) {
  return InvalidArgument("registry: " + path + ": " + what);
}

}  // namespace

Result<Registry> ParseRegistry(std::string_view bytes) {
  LAS_RETURN_IF_ERROR(trust::CheckStrictJson(bytes, {.max_bytes = 1 << 20, .max_depth = 8}));
  const nlohmann::json doc = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Invalid("$", "must be an object");
  // The version first: a newer file's new fields are "unsupported", not "unknown".
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_unsigned() ||
      doc["schema_version"].get<uint64_t>() == 0) {
    return Invalid("$.schema_version", "must be the integer 1");
  }
  if (doc["schema_version"].get<uint64_t>() > 1) {
    return Unsupported("registry: schema_version " + doc["schema_version"].dump() +
                       " is newer than this las reads (1)");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema_version" && key != "surfaces") return Invalid("$." + key, "unknown field");
  }
  if (!doc.contains("surfaces") || !doc["surfaces"].is_array()) {
    return Invalid("$.surfaces", "must be an array");
  }
  Registry registry;
  std::set<std::string> seen;
  const auto& surfaces = doc["surfaces"];
  for (size_t i = 0; i < surfaces.size(); ++i) {
    const std::string path = "$.surfaces[" + std::to_string(i) + "]";
    const auto& entry = surfaces[i];
    if (!entry.is_object()) return Invalid(path, "must be an object");
    for (const auto& [key, value] : entry.items()) {
      if (key != "name" && key != "description") return Invalid(path + "." + key, "unknown field");
    }
    if (!entry.contains("name") || !entry["name"].is_string()) {
      return Invalid(path + ".name", "must be a string");
    }
    ConfiguredSurface surface;
    surface.name = entry["name"].get<std::string>();
    if (!trust::IsValidSurfaceName(surface.name)) {
      return Invalid(path + ".name",
                     "'" + EscapeForTerminal(surface.name) + "' is not a valid surface name");
    }
    if (!seen.insert(surface.name).second) {
      return Invalid(path + ".name", "duplicate surface '" + surface.name + "'");
    }
    const KnownSurface* known = FindKnownSurface(surface.name);
    if (entry.contains("description")) {
      if (!entry["description"].is_string()) return Invalid(path + ".description", "must be a string");
      surface.description = entry["description"].get<std::string>();
    } else if (known != nullptr) {
      surface.description = std::string(known->role);
    }
    // The policy follows from the name: a file cannot make skarbiec ordinary.
    surface.policy = known != nullptr ? known->policy : SurfacePolicy::kOrdinary;
    registry.surfaces.push_back(std::move(surface));
  }
  std::sort(registry.surfaces.begin(), registry.surfaces.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return registry;
}

constexpr size_t kMaxRegistryBytes = 1024 * 1024;

namespace {

// What the resolution of `path` reads, links followed as the kernel does (at most 40), in
// order; where resolution fails, what it read up to there.
struct PathWalk {
  std::vector<std::string> directories;  // each directory whose entries it reads
  // Each symbolic link on the way that neither this user nor root owns: its owner may
  // point it elsewhere, even in a sticky directory (probe EU2).
  std::vector<std::string> foreign_links;
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
    if (::lstat(next.c_str(), &st) != 0) break;
    if (!S_ISLNK(st.st_mode)) {
      resolved = next;
      continue;
    }
    if (++links > 40) break;
    if (st.st_uid != ::geteuid() && st.st_uid != 0) walk.foreign_links.push_back(next.string());
    const fs::path target = fs::read_symlink(next, error);
    if (error) break;
    if (target.is_absolute()) resolved = "/";
    std::vector<std::string> parts;
    for (const fs::path& piece : target.relative_path()) parts.push_back(piece.string());
    pending.insert(pending.begin(), parts.begin(), parts.end());
  }
  return walk;
}

}  // namespace

std::optional<std::string> RegistryFileNote(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // LoadRegistry says what matters
  const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (st.st_uid != ::geteuid() || others_write) {
    return "the registry " + path + " may be written by " +
           (st.st_uid != ::geteuid() ? std::string("another user (its owner), who then decides")
                                     : "others (mode " + FileModeText(st.st_mode) +
                                           "), who then decide") +
           " which signed surfaces run: chmod go-w, and own it";
  }
  // Whoever may write a directory the path goes through replaces what is read by a
  // rename, whatever the file's mode, unless the directory is sticky (probe CO6) — the
  // file's own, and each one holding a link on the way (probes EH1, EL1); and a link's
  // owner retargets it at will.
  const PathWalk walk = WalkResolving(path);
  if (!walk.foreign_links.empty()) {
    return "the registry " + path + " is read through a symbolic link another user owns (" +
           walk.foreign_links.front() +
           "): they can point it elsewhere and decide which signed surfaces run: name the "
           "file by a path only you control";
  }
  for (const std::string& dir : walk.directories) {
    struct stat dir_st {};
    if (::stat(dir.c_str(), &dir_st) != 0) continue;
    const bool dir_others_write = (dir_st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if ((dir_st.st_uid == ::geteuid() || dir_st.st_uid == 0) &&
        (!dir_others_write || (dir_st.st_mode & S_ISVTX) != 0)) {
      continue;
    }
    const bool other_owner = dir_st.st_uid != ::geteuid() && dir_st.st_uid != 0;
    return "the registry " + path + " is read through a directory others may write (" + dir +
           ", mode " + FileModeText(dir_st.st_mode) + (other_owner ? ", owned by another user" : "") +
           "): they can replace it and decide which signed surfaces run: keep it in a "
           "directory only you may write";
  }
  return std::nullopt;
}

Result<Registry> LoadRegistry(const std::string& path) {
  // A regular file of bounded size, opened without blocking: a FIFO at the path is
  // refused instead of waiting for a writer forever.
  auto bytes = trust::ReadBoundedFile(path, "registry", kMaxRegistryBytes);
  if (!bytes.ok()) {
    if (bytes.verdict().reason() == trust::Reason::kFileMissing) return NotFound("registry: cannot open " + path);
    return bytes.verdict().ToStatus();
  }
  Result<Registry> parsed = ParseRegistry(*bytes);
  if (!parsed.ok()) return Status(parsed.status().code(), path + ": " + parsed.status().message());
  return parsed;
}

namespace {

constexpr std::string_view kBlank = " \t\n\r\v\f";  // a value read from a file ends in \n


std::set<std::string> SplitNames(std::string_view list) {
  std::set<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(start, comma - start);
    while (!name.empty() && kBlank.find(name.front()) != std::string_view::npos) name.remove_prefix(1);
    while (!name.empty() && kBlank.find(name.back()) != std::string_view::npos) name.remove_suffix(1);
    if (!name.empty()) names.emplace(name);
    start = comma + 1;
  }
  return names;
}

}  // namespace

bool IsBlankList(std::string_view list) {
  return list.find_first_not_of(kBlank) == std::string_view::npos;
}

std::vector<std::string> FilterEligible(const std::vector<std::string>& eligible,
                                        std::optional<std::string_view> only,
                                        std::optional<std::string_view> skip) {
  const std::set<std::string> only_names = only ? SplitNames(*only) : std::set<std::string>{};
  const std::set<std::string> skip_names = skip ? SplitNames(*skip) : std::set<std::string>{};
  const bool only_given = only && !IsBlankList(*only);
  std::vector<std::string> out;
  for (const auto& name : eligible) {
    if (only_given && only_names.count(name) == 0) continue;
    if (skip_names.count(name) != 0) continue;
    out.push_back(name);
  }
  return out;
}

bool NamesNothing(std::string_view list) { return !IsBlankList(list) && SplitNames(list).empty(); }

std::vector<std::string> UnmatchedNames(const std::vector<std::string>& eligible,
                                        std::string_view list) {
  std::vector<std::string> unmatched;
  for (const auto& name : SplitNames(list)) {
    if (std::find(eligible.begin(), eligible.end(), name) == eligible.end()) {
      unmatched.push_back(name);
    }
  }
  return unmatched;
}

}  // namespace las::tools
