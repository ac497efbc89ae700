#include "tools/special_policy_guard.h"

#include "tools/federation.h"
#include "tools/las_tools.h"
#include "tools/special_policies.h"

namespace las::tools {
namespace {

constexpr int kRefusedCode = -32602;  // tools/gateway.h kCallRefused
constexpr int kFailedCode = -32603;   // tools/gateway.h kCallFailed

Refusal Refuse(const trust::Verdict& verdict, int code, std::string_view message) {
  return Refusal{std::string(verdict.reason_name()), code, message};
}

}  // namespace

SurfacePolicy SpecialPolicyGuard::PolicyOf(const CatalogTool& tool) const {
  if (tool.builtin) return SurfacePolicy::kOrdinary;
  const ConfiguredSurface* surface = registry_.Find(tool.surface);
  return surface == nullptr ? SurfacePolicy::kOrdinary : surface->policy;
}

std::optional<Refusal> SpecialPolicyGuard::BeforeCall(const SessionInfo& /*session*/,
                                                      const CatalogTool& tool,
                                                      std::string_view arguments_json) {
  const SurfacePolicy policy = PolicyOf(tool);
  if (policy == SurfacePolicy::kOrdinary) return std::nullopt;
  if (links_.federation == nullptr) {
    return Refuse(trust::Reject(trust::Reason::kPolicyUnavailable, ""), kRefusedCode,
                  "Refused by local policy");
  }
  const SpecialPolicies& policies = links_.federation->policies();
  if (trust::Verdict v = CheckToolName(policy, tool.surface, tool.tool, policies); !v.ok()) {
    return Refuse(v, kRefusedCode, "Refused by local policy");
  }
  if (policy == SurfacePolicy::kSkarbiec) {
    const trust::SkarbiecTaxonomy* taxonomy = policies.taxonomy ? &*policies.taxonomy : nullptr;
    if (trust::Verdict v = trust::CheckSkarbiecArguments(tool.tool, arguments_json, taxonomy);
        !v.ok()) {
      return Refuse(v, kRefusedCode, "Arguments refused by local policy");
    }
  }
  return std::nullopt;
}

std::optional<Refusal> SpecialPolicyGuard::OnResult(const SessionInfo& /*session*/,
                                                    const CatalogTool& tool,
                                                    std::string& result_json) {
  if (PolicyOf(tool) != SurfacePolicy::kSkarbiec) return std::nullopt;
  std::string relayed;
  if (trust::Verdict v = trust::CheckSkarbiecResult(tool.tool, result_json, &relayed); !v.ok()) {
    return Refuse(v, kFailedCode, "Tool call failed");
  }
  result_json = std::move(relayed);
  return std::nullopt;
}

bool SpecialPolicyGuard::RelaysProgress(const CatalogTool& tool) const {
  return PolicyOf(tool) != SurfacePolicy::kSkarbiec;
}

}  // namespace las::tools
