#include "tools/special_policies.h"

#include "base/home_directory.h"
#include "tools/grant_policy.h"
#include "trust/release_paths.h"

namespace las::tools {
namespace {

struct PolicyFile {
  std::string path;       // empty: none
  bool explicit_ = false; // named by its variable (then it must exist)
  trust::Verdict verdict; // a bad variable (relative path)
};

std::string Get(const trust::Environment& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

PolicyFile Locate(const trust::Environment& env, const char* variable, const char* file_name) {
  PolicyFile out;
  if (std::string value = Get(env, variable); !value.empty()) {
    out.explicit_ = true;
    out.verdict = trust::CheckAbsolutePath(variable, value);
    out.path = std::move(value);
    return out;
  }
  std::string base = Get(env, "XDG_CONFIG_HOME");
  if (base.empty() || base.front() != '/') {
    // The home the log and the snapshot key default under, passwd's without HOME.
    const std::string home = HomeDirectory(Get(env, "HOME"));
    if (home.empty()) return out;
    base = home + "/.config";
  }
  out.path = base + "/las/" + file_name;
  return out;
}

}  // namespace

SpecialPolicies LoadSpecialPolicies(const trust::Environment& environment,
                                    const trust::SecureFileOptions& secure) {
  SpecialPolicies policies;

  const PolicyFile taxonomy = Locate(environment, kEnvSkarbiecPolicy, "skarbiec-policy.json");
  if (!taxonomy.verdict.ok()) {
    policies.taxonomy_verdict = taxonomy.verdict;
  } else if (taxonomy.path.empty()) {
    policies.taxonomy_verdict = trust::Reject(
        trust::Reason::kPolicyUnavailable,
        "no Skarbiec taxonomy: set LAS_SKARBIEC_POLICY (capability calls are refused)");
  } else {
    auto loaded = trust::LoadSkarbiecTaxonomy(taxonomy.path, secure);
    if (loaded.ok()) {
      policies.taxonomy = std::move(loaded).value();
      policies.taxonomy_path = taxonomy.path;
    } else if (loaded.verdict().reason() == trust::Reason::kFileMissing && !taxonomy.explicit_) {
      policies.taxonomy_verdict = trust::Reject(
          trust::Reason::kPolicyUnavailable,
          "no Skarbiec taxonomy at " + taxonomy.path +
              " and LAS_SKARBIEC_POLICY is unset (capability calls are refused)");
    } else {
      policies.taxonomy_verdict = loaded.verdict();
      policies.taxonomy_path = taxonomy.path;
    }
  }

  const PolicyFile lists = Locate(environment, kEnvSurfacePolicy, "surface-policy.json");
  if (!lists.verdict.ok()) {
    policies.allowlists_verdict = lists.verdict;
  } else if (lists.path.empty()) {
    policies.allowlists = trust::DefaultSurfaceAllowlists();
  } else {
    auto loaded = trust::LoadSurfaceAllowlists(lists.path, secure);
    if (loaded.ok()) {
      policies.allowlists = std::move(loaded).value();
      policies.allowlists_path = lists.path;
    } else if (loaded.verdict().reason() == trust::Reason::kFileMissing && !lists.explicit_) {
      policies.allowlists = trust::DefaultSurfaceAllowlists();
    } else {
      policies.allowlists_verdict = loaded.verdict();
      policies.allowlists_path = lists.path;
    }
  }

  policies.finance = trust::ReadFinanceConfig(environment);
  return policies;
}

SpecialAdmission AdmitSpecial(SurfacePolicy policy, const trust::SurfaceBinding& surface,
                              const SpecialPolicies& policies,
                              const trust::Environment& environment,
                              const trust::SecureFileOptions& secure) {
  SpecialAdmission out;
  switch (policy) {
    case SurfacePolicy::kOrdinary:
      break;
    case SurfacePolicy::kSkarbiec:
      out.verdict = trust::CheckSkarbiecBinding(surface);
      break;
    case SurfacePolicy::kFinance:
      if (!policies.finance.any_set) {
        out.absent = true;
        out.verdict = policies.finance.verdict;
        break;
      }
      out.verdict = trust::CheckFinanceBinding(policies.finance, surface, secure);
      if (out.verdict.ok()) out.child_env = trust::FinanceChildEnvironment(environment);
      break;
    case SurfacePolicy::kTama:
    case SurfacePolicy::kWarsztat: {
      if (!policies.allowlists) {
        out.verdict = policies.allowlists_verdict;
        break;
      }
      const trust::ToolAllowlist& allow =
          policy == SurfacePolicy::kTama ? policies.allowlists->tama : policies.allowlists->warsztat;
      for (const trust::ToolBinding& tool : surface.tools) {
        trust::Verdict v = trust::CheckAllowlisted(surface.name, allow, tool.name);
        if (!v.ok()) out.left_out.emplace_back(tool.name, std::move(v));
      }
      break;
    }
  }
  return out;
}

trust::Verdict CheckToolName(SurfacePolicy policy, std::string_view surface,
                             std::string_view tool, const SpecialPolicies& policies) {
  switch (policy) {
    case SurfacePolicy::kOrdinary:
      return trust::Verdict::Accept();
    case SurfacePolicy::kSkarbiec:
      if (trust::FindSkarbiecPinnedTool(tool) == nullptr) {
        return trust::Reject(trust::Reason::kPolicyToolNotAllowed,
                             "skarbiec: tool \"" + std::string(tool) + "\" is not permitted");
      }
      return trust::Verdict::Accept();
    case SurfacePolicy::kFinance:
      return trust::CheckFinanceToolName(tool);
    case SurfacePolicy::kTama:
    case SurfacePolicy::kWarsztat:
      if (!policies.allowlists) return policies.allowlists_verdict;
      return trust::CheckAllowlisted(
          surface,
          policy == SurfacePolicy::kTama ? policies.allowlists->tama : policies.allowlists->warsztat,
          tool);
  }
  return trust::Reject(trust::Reason::kPolicyToolNotAllowed, "unknown policy");
}

std::optional<std::string> SkarbiecAgentIdProblem(const trust::Environment& environment) {
  auto it = environment.find("SKARBIEC_MCP_AGENT_ID");
  if (it == environment.end() || it->second.empty()) {
    return "SKARBIEC_MCP_AGENT_ID is not set: every session is refused";
  }
  if (!IsValidAgentId(it->second)) {
    return std::string("SKARBIEC_MCP_AGENT_ID names no possible agent (") + kAgentIdRule +
           "): every session is refused";
  }
  return std::nullopt;
}

}  // namespace las::tools
