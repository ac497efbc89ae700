// `las__onboarding`: Las's first-use journey as an MCP tool. Always listed.
#pragma once

#include "tools/builtin_tools.h"

namespace las::tools {

void AddOnboardingTool(BuiltinTools& tools);

}  // namespace las::tools
