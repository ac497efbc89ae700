// Finance: proposal-only, activated only by a complete local configuration, never by a
// signature alone (docs/POLICIES.md).
//
// Configuration: five variables, all or none.
//   LAS_FINANCE_POLICY         absolute path of the finance policy file
//   LAS_FINANCE_POLICY_SHA256  the policy file's canonical SHA-256 (RFC 8785 form, hex)
//   LAS_FINANCE_STATE          absolute path of the child's state
//   LAS_FINANCE_KEY            absolute path of the child's key file
//   LAS_FINANCE_BINARY_SHA256  SHA-256 (hex) of the code the finance child runs
// None set (or all empty): finance is absent, even if a release binds it. Some set:
// kFinanceConfigIncomplete, the detail naming every missing variable (names only).
//
// Admission (CheckFinanceBinding), in order, each failure final:
//   1. the configuration is complete and well formed (kFinanceConfigIncomplete,
//      kNotAbsolute, kFinanceConfigInvalid for a digest not spelled as 64 lowercase hex)
//   2. the launched code's signed digest equals LAS_FINANCE_BINARY_SHA256: the code file's
//      digest when the binding names one (an interpreter's script), else the command's
//      (kFinanceBinaryMismatch). The launch check then proves the bytes on disk equal
//      that signed digest, so what runs is exactly the configured binary.
//   3. the policy file: ReadSecureFile (owner-only, no symlink; its reasons), strict JSON
//      (kPolicyInvalid), canonical SHA-256 equal to LAS_FINANCE_POLICY_SHA256
//      (kFinancePolicyFingerprint), and its top-level "mode" is "proposal-only"
//      (kFinanceNotProposalOnly). Other members are the child's business.
//   4. the key file: OpenSecureFile (owner-only, no symlink), never read by Las.
//   5. every bound tool passes CheckFinanceToolName.
//
// Tool names: a name containing a forbidden verb fragment (FinanceForbiddenVerbs(),
// case-insensitive substring: execution, approval, signing, broadcast, beneficiary and
// policy verbs) is kPolicyForbiddenVerb even if it is listed; any other name outside
// finance_propose, finance_status, finance_cancel is kPolicyToolNotAllowed. This is a
// local guard in front of the child; the child must still enforce its own rules.
//
// Thread safety: free functions and value types.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trust/digest.h"
#include "trust/environment.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/secure_file.h"

namespace las::trust {

inline constexpr std::string_view kEnvFinancePolicy = "LAS_FINANCE_POLICY";
inline constexpr std::string_view kEnvFinancePolicySha256 = "LAS_FINANCE_POLICY_SHA256";
inline constexpr std::string_view kEnvFinanceState = "LAS_FINANCE_STATE";
inline constexpr std::string_view kEnvFinanceKey = "LAS_FINANCE_KEY";
inline constexpr std::string_view kEnvFinanceBinarySha256 = "LAS_FINANCE_BINARY_SHA256";
inline constexpr std::string_view kFinanceProposalOnly = "proposal-only";
inline constexpr size_t kMaxFinancePolicyBytes = 256 * 1024;

// The five variable names, in the order above.
std::span<const std::string_view> FinanceVariables();
// The permitted tool names.
std::span<const std::string_view> FinanceAllowedTools();
// The forbidden verb fragments (lowercase).
std::span<const std::string_view> FinanceForbiddenVerbs();

struct FinanceConfig {
  std::string policy_path;
  Sha256Digest policy_sha256{};
  std::string state_path;
  std::string key_path;
  Sha256Digest binary_sha256{};
};

struct FinanceActivation {
  bool any_set = false;                // false: finance is absent (not an error)
  Verdict verdict;                     // accepted iff complete and well formed
  std::vector<std::string> missing;    // variable names, when incomplete
  FinanceConfig config;                // meaningful only when any_set && verdict.ok()
  bool active() const { return any_set && verdict.ok(); }
};

// Reads the five variables from `environment` (an empty value counts as unset).
FinanceActivation ReadFinanceConfig(const Environment& environment);

Verdict CheckFinanceToolName(std::string_view name);
// Step 2 above.
Verdict CheckFinanceBinary(const FinanceConfig& config, const SurfaceBinding& surface);
// Step 3 above.
Verdict CheckFinancePolicyFile(const FinanceConfig& config, const SecureFileOptions& options = {});
// Steps 1-5 above.
Verdict CheckFinanceBinding(const FinanceActivation& activation, const SurfaceBinding& surface,
                            const SecureFileOptions& options = {});

// "NAME=value" for the finance paths and digests the child receives in its environment
// (LAS_FINANCE_POLICY, LAS_FINANCE_POLICY_SHA256, LAS_FINANCE_STATE, LAS_FINANCE_KEY,
// LAS_FINANCE_BINARY_SHA256). Paths, not contents: the key never passes through Las.
std::vector<std::string> FinanceChildEnvironment(const Environment& environment);

}  // namespace las::trust
