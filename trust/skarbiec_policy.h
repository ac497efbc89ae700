// Skarbiec (the capability broker): the local rules Las applies on top of the signed
// manifest, which no signature can override (docs/POLICIES.md).
//
//   admission  CheckSkarbiecBinding: the release may bind only `health`,
//              `capability_available` and `capability_request`, each with exactly the
//              input schema and description pinned here (by the digests of
//              docs/MANIFEST.md) and without credential templates. Anything else fails the
//              surface closed: kPolicyToolNotAllowed / kPolicyPinMismatch.
//   arguments  CheckSkarbiecArguments: purpose/resource/target bounded (1..64 bytes of
//              [a-z0-9._:-], starting with a letter or digit) and members of the local
//              taxonomy (kSkarbiecTaxonomy); ttl_seconds an integer 1..60 (kSkarbiecTtl);
//              use_count exactly 1 (kSkarbiecUseCount); delegation_depth exactly 0
//              (kSkarbiecDelegationDepth). Without a taxonomy every capability call is
//              kPolicyUnavailable (fail closed); `health` needs none.
//   results    CheckSkarbiecResult: exactly {"content":[{"type":"text","text":T}]} where T
//              is the strict JSON text of the tool's envelope:
//                health                {"status": "ok" | "degraded" | "unavailable"}
//                capability_available  {"available": true | false}
//                capability_request    {"capability_id": "cap-" [A-Za-z0-9_-]{4,64},
//                                       "expires_in_seconds": 1..60}
//              Anything else is kSkarbiecResultEnvelope, or kSkarbiecCredentialInResult when
//              a key or value anywhere in it looks like a credential (token, secret,
//              password, bearer/basic authorization, a PEM block, a JWT).
//
// Details name fields and rules, never a value a client or child sent (a refused value may
// be a secret).
//
// Thread safety: free functions and value types; the pinned table is immutable.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/secure_file.h"

namespace las::trust {

inline constexpr std::string_view kSkarbiecHealth = "health";
inline constexpr std::string_view kSkarbiecAvailable = "capability_available";
inline constexpr std::string_view kSkarbiecRequest = "capability_request";
inline constexpr int64_t kSkarbiecMaxTtlSeconds = 60;
inline constexpr size_t kSkarbiecMaxValueBytes = 64;
inline constexpr size_t kSkarbiecMaxTaxonomyEntries = 256;
inline constexpr size_t kSkarbiecMaxPolicyBytes = 64 * 1024;

// One tool Las pins for Skarbiec: the exact description and input schema (JSON text) the
// child must list. The stand-in (examples/surfaces/stand_in.py) lists exactly these.
struct PinnedTool {
  std::string_view name;
  std::string_view description;
  std::string_view input_schema_json;
};

// The three pinned tools, in name order.
std::span<const PinnedTool> SkarbiecPinnedTools();
// nullptr for a name Las does not permit for Skarbiec.
const PinnedTool* FindSkarbiecPinnedTool(std::string_view name);

// Accepted iff every tool `surface` binds is pinned, with equal input schema and
// description digests and no credential templates. A binding of a subset is accepted
// (only the bound tools are federated).
Verdict CheckSkarbiecBinding(const SurfaceBinding& surface);

// The local taxonomy: the allowed values of each argument.
struct SkarbiecTaxonomy {
  std::set<std::string, std::less<>> purposes;
  std::set<std::string, std::less<>> resources;
  std::set<std::string, std::less<>> targets;
  bool operator==(const SkarbiecTaxonomy&) const = default;
};

// Parses a taxonomy file (strict JSON, at most kSkarbiecMaxPolicyBytes):
//   {"schema_version": 1, "purposes": [...], "resources": [...], "targets": [...]}
// each list non-empty, at most kSkarbiecMaxTaxonomyEntries values, each a bounded value
// (see above), unique. Unknown fields, another schema_version: kPolicyInvalid.
VerdictOr<SkarbiecTaxonomy> ParseSkarbiecTaxonomy(std::string_view bytes);
// ReadSecureFile (owner-only, no symlink; its reasons), then ParseSkarbiecTaxonomy.
VerdictOr<SkarbiecTaxonomy> LoadSkarbiecTaxonomy(const std::string& path,
                                                 const SecureFileOptions& options = {});

// True if `value` is a bounded taxonomy value: 1..64 bytes of [a-z0-9._:-], first [a-z0-9].
bool IsSkarbiecValue(std::string_view value);

// The call-time argument rules for `tool` (one of the pinned names; any other name is
// kPolicyToolNotAllowed). `arguments_json` is the client's arguments as sent (empty
// means {}); not a strict JSON object: kArgumentsInvalid; a member the tool does not
// take: kArgumentsSchemaViolation. `taxonomy` may be null (no local taxonomy).
Verdict CheckSkarbiecArguments(std::string_view tool, std::string_view arguments_json,
                               const SkarbiecTaxonomy* taxonomy);

// The result rules for `tool` (see above). On acceptance, `relayed` (when given) is set to
// the result Las relays and records instead of the child's bytes: the same values written
// by Las — compact, keys sorted, its own escapes — so the whitespace and escapes the child
// chose carry nothing to the client or the log (probe EJ1).
Verdict CheckSkarbiecResult(std::string_view tool, std::string_view result_json,
                            std::string* relayed = nullptr);

}  // namespace las::trust
