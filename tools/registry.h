// The surface registry: which child MCP servers ("surfaces") this Las is configured to
// federate. A surface is eligible only when it is configured here, bound by the signed
// release and admitted; LAS_ONLY and LAS_SKIP can then only subtract.
//
// Las knows the seed's twelve surfaces by name, each with the policy its name implies
// (skarbiec, finance, tama and warsztat have special local policies that a registry file
// cannot downgrade). Other names are allowed, with the ordinary policy. Format:
// docs/REGISTRY.md.
//
// Thread safety: value types; the loader has no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace las::tools {

// Why a surface the release binds is not served: the registry does not configure it.
inline constexpr std::string_view kReasonNotInRegistry = "not-in-registry";
// Why an eligible surface is not served by this process: LAS_ONLY or LAS_SKIP left it out.
// It says nothing of what the release serves.
inline constexpr std::string_view kReasonSkipped = "skipped";

enum class SurfacePolicy { kOrdinary, kSkarbiec, kFinance, kTama, kWarsztat };

std::string_view PolicyName(SurfacePolicy policy);

struct KnownSurface {
  std::string_view name;
  std::string_view role;  // one line: what the surface is for
  SurfacePolicy policy;
};

// The twelve surfaces of the seed, sorted by name.
const std::vector<KnownSurface>& KnownSurfaces();
const KnownSurface* FindKnownSurface(std::string_view name);

struct ConfiguredSurface {
  std::string name;
  std::string description;
  SurfacePolicy policy = SurfacePolicy::kOrdinary;
};

struct Registry {
  std::vector<ConfiguredSurface> surfaces;  // sorted by name, unique
  bool built_in = false;                    // DefaultRegistry(): no registry file given
  const ConfiguredSurface* Find(std::string_view name) const;
};

// How messages name `registry`: "the registry", or for the built-in one, that it is the
// built-in one of the seed's twelve names and how to configure others (probe FN7: a
// surface left out "not configured in the registry" where the user had given no registry).
std::string RegistryName(const Registry& registry);

// The registry used when no file is given: all twelve known surfaces.
Registry DefaultRegistry();

// Parses a registry file's bytes (strict JSON). kInvalidArgument names the problem and
// JSON path; kUnsupported for a newer schema_version.
Result<Registry> ParseRegistry(std::string_view bytes);
// Reads and parses a file. kNotFound, kIo, or ParseRegistry's errors.
Result<Registry> LoadRegistry(const std::string& path);
// For a server's start: one line when others than this process's user (and root) may
// change the registry file at `path` (base/path_exposure.h) — whoever can write or replace
// it decides which signed surfaces run; nullopt otherwise, and for a missing file. It is a
// note, not a refusal: the registry only ever chooses among surfaces the signed release
// binds (probe AU11).
std::optional<std::string> RegistryFileNote(const std::string& path);

// Applies LAS_ONLY / LAS_SKIP (comma-separated surface names, whitespace around each
// trimmed; empty or unset = no-op) to `eligible`, keeping order. Names in the lists that
// are not eligible are ignored: the lists only ever subtract. A LAS_ONLY that is not blank
// but names nothing (",") keeps nothing, as one naming only unknown surfaces does.
std::vector<std::string> FilterEligible(const std::vector<std::string>& eligible,
                                        std::optional<std::string_view> only,
                                        std::optional<std::string_view> skip);
// Whether `list` is not blank yet names nothing (","): as LAS_ONLY it keeps every surface out.
bool NamesNothing(std::string_view list);
// Whether a LAS_ONLY / LAS_SKIP value is blank (only spaces, tabs, line ends, \v, \f): unset.
bool IsBlankList(std::string_view list);
// The names in `list` (as FilterEligible reads it) that are not in `eligible`: a typo in
// LAS_ONLY would otherwise leave every surface out without a word.
std::vector<std::string> UnmatchedNames(const std::vector<std::string>& eligible,
                                        std::string_view list);

}  // namespace las::tools
