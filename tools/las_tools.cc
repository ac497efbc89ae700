#include "tools/las_tools.h"

#include "tools/onboarding_tool.h"

namespace las::tools {

void AddLasTools(BuiltinTools& tools, const LasToolContext& /*context*/) {
  AddOnboardingTool(tools);
}

}  // namespace las::tools
