#include "tools/las_tools.h"

#include "tools/onboarding_tool.h"

namespace las::tools {

void AddLasTools(BuiltinTools& tools, const LasToolContext& /*context*/) {
  AddOnboardingTool(tools);
}

std::vector<std::unique_ptr<CallGuard>> MakeCallGuards(const LasToolContext& /*context*/) {
  std::vector<std::unique_ptr<CallGuard>> guards;
  return guards;
}

}  // namespace las::tools
