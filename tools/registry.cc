#include "tools/registry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/path_exposure.h"
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

std::optional<std::string> RegistryFileNote(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // LoadRegistry says what matters
  return PathExposureNote(path, "the registry " + path, "decide which signed surfaces run");
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
