#include "cli/agent_flag.h"

#include <string>

#include "base/printable_text.h"
#include "tools/grant_policy.h"

namespace las::cli {

CLI::Validator AgentIdFlag() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (tools::IsValidAgentId(text)) return std::string();
        return tools::AgentIdRefusal(text);
      },
      "AGENT", "AgentId");
}

}  // namespace las::cli
