#include "tools/grant_policy.h"

#include "base/printable_text.h"

namespace las::tools {

bool IsValidAgentId(std::string_view agent_id) {
  return !agent_id.empty() && agent_id.size() <= kMaxAgentIdBytes && IsPrintableText(agent_id);
}

GrantPolicy GrantPolicyFor(const trust::Environment& environment) {
  GrantPolicy policy;
  if (auto it = environment.find("LAS_AGENT_ID"); it != environment.end() && !it->second.empty()) {
    policy.default_agent_id = it->second;
  }
  if (auto it = environment.find("LAS_DEFAULT_AGENT_GRANT");
      it != environment.end() && !it->second.empty()) {
    policy.default_agent_root = it->second == "root";
  }
  return policy;
}

}  // namespace las::tools
