// Tama and Warsztat: local allowlists of the tools Las exposes from each, whatever a
// release signs (docs/POLICIES.md). Tama exposes only read-oriented tools, Warsztat only
// proposal tools. The lists come from a local policy file, or shipped defaults; nothing
// signed can widen them (a signed tool outside the list is left out of the catalog).
//
// File (strict JSON, at most kMaxSurfacePolicyBytes, owner-only like the trust store):
//   {"schema_version": 1, "tama": ["list_hooks", ...], "warsztat": ["create_proposal", ...]}
// A surface the file omits keeps its shipped default; a listed surface gets exactly its
// list (which may be empty: nothing exposed). Tool names follow the manifest's rule
// ([A-Za-z0-9_.-]{1,128}), unique, at most 256 per surface. Anything else: kPolicyInvalid.
//
// Thread safety: free functions and value types.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "trust/reason.h"
#include "trust/secure_file.h"

namespace las::trust {

inline constexpr size_t kMaxSurfacePolicyBytes = 64 * 1024;
inline constexpr size_t kMaxAllowlistEntries = 256;

using ToolAllowlist = std::set<std::string, std::less<>>;

struct SurfaceAllowlists {
  ToolAllowlist tama;
  ToolAllowlist warsztat;
};

// Tama: list_hooks, inspect_hook, get_hook, hook_status. Warsztat: list_proposals,
// get_proposal, create_proposal, proposal_status.
SurfaceAllowlists DefaultSurfaceAllowlists();

VerdictOr<SurfaceAllowlists> ParseSurfaceAllowlists(std::string_view bytes);
// ReadSecureFile (its reasons), then ParseSurfaceAllowlists.
VerdictOr<SurfaceAllowlists> LoadSurfaceAllowlists(const std::string& path,
                                                   const SecureFileOptions& options = {});

// Accepted iff `tool` is in `allowlist`; else kPolicyToolNotAllowed naming the surface and
// the tool.
Verdict CheckAllowlisted(std::string_view surface, const ToolAllowlist& allowlist,
                         std::string_view tool);

}  // namespace las::trust
