// The special surface policies, as configured on this machine: loaded once, then applied
// at admission (federation, `las check`) and at call time (tools/special_policy_guard.h).
// The rules themselves are trust/'s (skarbiec_policy.h, finance_policy.h,
// surface_allowlist.h); this file finds the local files, reads them once and says which
// rule applies to which surface. Documented in docs/POLICIES.md.
//
// Local files (each read with trust/secure_file.h's owner-only checks):
//   LAS_SKARBIEC_POLICY  the Skarbiec taxonomy; default $XDG_CONFIG_HOME/las/skarbiec-policy.json
//                        (else ~/.config/las/...). Absent: capability calls are refused.
//   LAS_SURFACE_POLICY   the Tama/Warsztat allowlists; default
//                        $XDG_CONFIG_HOME/las/surface-policy.json. Absent: shipped defaults.
// A variable that is set must name an absolute path to an existing file; a missing default
// file is simply "not configured".
//
// Thread safety: value types and free functions; SpecialPolicies is immutable once loaded.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/registry.h"
#include "trust/environment.h"
#include "trust/finance_policy.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/secure_file.h"
#include "trust/skarbiec_policy.h"
#include "trust/surface_allowlist.h"

namespace las::tools {

inline constexpr const char* kEnvSkarbiecPolicy = "LAS_SKARBIEC_POLICY";
inline constexpr const char* kEnvSurfacePolicy = "LAS_SURFACE_POLICY";
// A surface state reason (not a trust reason, no event): finance without any variable.
inline constexpr std::string_view kReasonFinanceAbsent = "finance-absent";
// While Skarbiec is served, a session of any other agent than SKARBIEC_MCP_AGENT_ID
// (SessionRefused; a `las check` row).
inline constexpr std::string_view kReasonSkarbiecAgentId = "skarbiec-agent-id";

struct SpecialPolicies {
  // The taxonomy, or why there is none (kPolicyUnavailable when no file is configured,
  // else the file's verdict).
  std::optional<trust::SkarbiecTaxonomy> taxonomy;
  trust::Verdict taxonomy_verdict;
  std::string taxonomy_path;  // empty: none configured
  // The allowlists (shipped defaults when no file); when the configured file is unusable,
  // `allowlists` is nullopt and Tama and Warsztat fail closed with `allowlists_verdict`.
  std::optional<trust::SurfaceAllowlists> allowlists;
  trust::Verdict allowlists_verdict;
  std::string allowlists_path;  // empty: shipped defaults
  trust::FinanceActivation finance;
};

SpecialPolicies LoadSpecialPolicies(const trust::Environment& environment,
                                    const trust::SecureFileOptions& secure = {});

// The admission rule of a special surface, before anything is launched.
struct SpecialAdmission {
  trust::Verdict verdict;               // rejected: the surface fails closed
  bool absent = false;                  // finance with no variable set: leave it out quietly
  std::vector<std::string> child_env;   // "NAME=value" the child also receives (finance)
  // Signed tools the local allowlist keeps out of the catalog (Tama, Warsztat), each with
  // its refusal.
  std::vector<std::pair<std::string, trust::Verdict>> left_out;
};

// Skarbiec: CheckSkarbiecBinding. Finance: absent without variables, else
// CheckFinanceBinding and the finance child environment. Tama/Warsztat: the allowlist must
// be usable; signed tools outside it go to `left_out`. Ordinary: accepted.
SpecialAdmission AdmitSpecial(SurfacePolicy policy, const trust::SurfaceBinding& surface,
                              const SpecialPolicies& policies,
                              const trust::Environment& environment,
                              const trust::SecureFileOptions& secure = {});

// The call-time name rule for a tool of a special surface (defense in depth: admission
// already kept such tools out). Skarbiec: pinned names; Finance: CheckFinanceToolName;
// Tama/Warsztat: the allowlist. Ordinary: accepted.
trust::Verdict CheckToolName(SurfacePolicy policy, std::string_view surface,
                             std::string_view tool, const SpecialPolicies& policies);

// While Skarbiec is served only SKARBIEC_MCP_AGENT_ID may open a session: why no session
// can (the variable unset or empty, or no possible agent id), or nullopt when it names one.
// `las serve` says it on stderr, `las check` fails on it.
std::optional<std::string> SkarbiecAgentIdProblem(const trust::Environment& environment);

}  // namespace las::tools
