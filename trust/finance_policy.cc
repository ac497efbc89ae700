#include "trust/finance_policy.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "trust/release_paths.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using internal::Json;

constexpr std::array<std::string_view, 5> kVariables = {
    kEnvFinancePolicy, kEnvFinancePolicySha256, kEnvFinanceState, kEnvFinanceKey,
    kEnvFinanceBinarySha256};

constexpr std::array<std::string_view, 3> kAllowed = {"finance_propose", "finance_status",
                                                      "finance_cancel"};

// Fragments of verbs a proposal-only surface must never offer, matched as lowercase
// substrings of the tool name (so "approve_payment", "ExecuteTransfer", "co_sign" all hit).
constexpr std::array<std::string_view, 22> kForbidden = {
    // execution
    "exec", "run", "submit", "settle", "transfer", "pay", "withdraw", "send",
    // approval
    "approv", "authori", "confirm", "accept",
    // signing
    "sign",
    // broadcast
    "broadcast", "publish", "relay",
    // beneficiary
    "beneficiar", "payee", "recipient",
    // policy
    "polic", "limit", "rule"};

std::string Value(const Environment& environment, std::string_view name) {
  auto it = environment.find(std::string(name));
  return it == environment.end() ? std::string() : it->second;
}

}  // namespace

std::span<const std::string_view> FinanceVariables() { return kVariables; }
std::span<const std::string_view> FinanceAllowedTools() { return kAllowed; }
std::span<const std::string_view> FinanceForbiddenVerbs() { return kForbidden; }

FinanceActivation ReadFinanceConfig(const Environment& environment) {
  FinanceActivation out;
  for (std::string_view name : kVariables) {
    if (Value(environment, name).empty()) {
      out.missing.emplace_back(name);
    } else {
      out.any_set = true;
    }
  }
  if (!out.any_set) {
    out.missing.clear();
    out.verdict = Reject(Reason::kNotConfigured, "finance is not configured (no LAS_FINANCE_*)");
    return out;
  }
  if (!out.missing.empty()) {
    std::string names;
    for (const std::string& n : out.missing) names += (names.empty() ? "" : ", ") + n;
    out.verdict = Reject(Reason::kFinanceConfigIncomplete,
                         "finance configuration is incomplete: missing " + names +
                             "; finance stays out until all five are set");
    return out;
  }
  FinanceConfig& config = out.config;
  config.policy_path = Value(environment, kEnvFinancePolicy);
  config.state_path = Value(environment, kEnvFinanceState);
  config.key_path = Value(environment, kEnvFinanceKey);
  for (auto [name, path] : {std::pair{kEnvFinancePolicy, &config.policy_path},
                            std::pair{kEnvFinanceState, &config.state_path},
                            std::pair{kEnvFinanceKey, &config.key_path}}) {
    if (Verdict v = CheckAbsolutePath(std::string(name), *path); !v.ok()) {
      out.verdict = v;
      return out;
    }
  }
  for (auto [name, digest] : {std::pair{kEnvFinancePolicySha256, &config.policy_sha256},
                              std::pair{kEnvFinanceBinarySha256, &config.binary_sha256}}) {
    auto parsed = Sha256FromHex(Value(environment, name));
    if (!parsed) {
      out.verdict = Reject(Reason::kFinanceConfigInvalid,
                           std::string(name) + " must be 64 lowercase hex characters");
      return out;
    }
    *digest = *parsed;
  }
  out.verdict = Verdict::Accept();
  return out;
}

Verdict CheckFinanceToolName(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view verb : kForbidden) {
    if (lower.find(verb) != std::string::npos) {
      return Reject(Reason::kPolicyForbiddenVerb,
                    "finance: tool \"" + std::string(name) + "\" contains the forbidden verb \"" +
                        std::string(verb) + "\" (finance is proposal-only)");
    }
  }
  if (std::find(kAllowed.begin(), kAllowed.end(), name) == kAllowed.end()) {
    return Reject(Reason::kPolicyToolNotAllowed,
                  "finance: tool \"" + std::string(name) +
                      "\" is not one of finance_propose, finance_status, finance_cancel");
  }
  return Verdict::Accept();
}

Verdict CheckFinanceBinary(const FinanceConfig& config, const SurfaceBinding& surface) {
  const Sha256Digest& launched = surface.code ? surface.code->sha256 : surface.binary_sha256;
  const std::string what = surface.code ? "code " + surface.code->path : "command " + surface.command;
  if (launched != config.binary_sha256) {
    return Reject(Reason::kFinanceBinaryMismatch,
                  "finance: the release binds " + what + " with sha256 " + Sha256Hex(launched) +
                      "; LAS_FINANCE_BINARY_SHA256 is " + Sha256Hex(config.binary_sha256));
  }
  return Verdict::Accept();
}

Verdict CheckFinancePolicyFile(const FinanceConfig& config, const SecureFileOptions& options) {
  SecureFileOptions bounded = options;
  bounded.max_bytes = std::min(options.max_bytes, kMaxFinancePolicyBytes);
  VerdictOr<std::string> bytes = ReadSecureFile(config.policy_path, "finance policy", bounded);
  if (!bytes.ok()) return bytes.verdict();
  Result<Sha256Digest> canonical = CanonicalSha256(*bytes);
  std::vector<internal::JsonPath> lost_precision;
  std::vector<internal::JsonPath> inexact_integers;
  Result<Json> parsed = internal::ParseStrictJson(*bytes, {}, &lost_precision, &inexact_integers);
  if (!canonical.ok() || !parsed.ok()) {
    return Reject(Reason::kPolicyInvalid,
                  "finance policy " + config.policy_path + " is not strict JSON");
  }
  // The fingerprint (RFC 8785) reads every number as a double: 98765432109876543 and
  // 98765432109876544 would share one, while the child reads the file itself (probe Z5).
  if (!lost_precision.empty() || !inexact_integers.empty()) {
    const internal::JsonPath& at = lost_precision.empty() ? inexact_integers[0] : lost_precision[0];
    std::string pointer;
    for (const std::string& segment : at) pointer += "/" + segment;
    return Reject(Reason::kPolicyInvalid,
                  "finance policy " + config.policy_path + " holds a number at " + pointer +
                      " that a double does not hold exactly, which its fingerprint cannot bind; "
                      "write it as a string");
  }
  if (*canonical != config.policy_sha256) {
    return Reject(Reason::kFinancePolicyFingerprint,
                  "finance policy " + config.policy_path + " has canonical sha256 " +
                      Sha256Hex(*canonical) + "; LAS_FINANCE_POLICY_SHA256 is " +
                      Sha256Hex(config.policy_sha256));
  }
  const Json& root = *parsed;
  if (!root.is_object() || !root.contains("mode") || root["mode"] != kFinanceProposalOnly) {
    return Reject(Reason::kFinanceNotProposalOnly,
                  "finance policy " + config.policy_path +
                      " does not declare \"mode\": \"proposal-only\"");
  }
  return Verdict::Accept();
}

Verdict CheckFinanceBinding(const FinanceActivation& activation, const SurfaceBinding& surface,
                            const SecureFileOptions& options) {
  if (!activation.any_set) {
    return Reject(Reason::kNotConfigured, "finance is not configured (no LAS_FINANCE_*)");
  }
  LAS_RETURN_IF_REJECTED(activation.verdict);
  const FinanceConfig& config = activation.config;
  LAS_RETURN_IF_REJECTED(CheckFinanceBinary(config, surface));
  LAS_RETURN_IF_REJECTED(CheckFinancePolicyFile(config, options));
  {
    VerdictOr<UniqueFd> key = OpenSecureFile(config.key_path, "finance key", options);
    // A missing file's name is not repeated: a key pasted where its path belongs (base64
    // starts with "/" one time in 64) would reach stderr, `las check` and the log (probes
    // CO1, GU1). An existing file's path is a path.
    if (!key.ok() && key.verdict().reason() == Reason::kFileMissing) {
      return Reject(Reason::kFileMissing,
                    "finance key: LAS_FINANCE_KEY names no file (its value is not repeated: it "
                    "must be the key file's path, not the key)");
    }
    if (!key.ok()) return key.verdict();
  }
  for (const ToolBinding& tool : surface.tools) {
    LAS_RETURN_IF_REJECTED(CheckFinanceToolName(tool.name));
  }
  return Verdict::Accept();
}

std::vector<std::string> FinanceChildEnvironment(const Environment& environment) {
  std::vector<std::string> out;
  for (std::string_view name : kVariables) {
    const std::string value = Value(environment, name);
    if (!value.empty()) out.push_back(std::string(name) + "=" + value);
  }
  return out;
}

}  // namespace las::trust
