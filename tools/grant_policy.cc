#include "tools/grant_policy.h"

namespace las::tools {

bool IsValidAgentId(std::string_view agent_id) {
  if (agent_id.empty() || agent_id.size() > 256) return false;
  for (char c : agent_id) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
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
