// Las's own tools (`las__*`), always in the catalog. For now: `las__onboarding`, whose
// journey arrives with the onboarding issue; until then it says so.
#pragma once

#include <string>
#include <string_view>

#include "tools/catalog.h"

namespace las::tools {

inline constexpr std::string_view kOnboardingTool = "las__onboarding";

void AddBuiltinTools(Catalog& catalog);

// The tools/call result (JSON text) of a builtin tool.
std::string CallBuiltin(const CatalogTool& tool, std::string_view arguments_json);

}  // namespace las::tools
