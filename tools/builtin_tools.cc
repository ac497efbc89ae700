#include "tools/builtin_tools.h"

#include <nlohmann/json.hpp>

namespace las::tools {

void AddBuiltinTools(Catalog& catalog) {
  CatalogTool onboarding;
  onboarding.qualified_name = std::string(kOnboardingTool);
  onboarding.surface = "las";
  onboarding.tool = "onboarding";
  onboarding.description =
      "Las's first-use journey: what is set up, what to do next. (Not set up yet in this "
      "version: it reports that.)";
  onboarding.input_schema_json =
      R"({"type":"object","properties":{"action":{"type":"string","enum":["status"]}},)"
      R"("additionalProperties":false})";
  catalog.AddBuiltin(std::move(onboarding));
}

std::string CallBuiltin(const CatalogTool& tool, std::string_view /*arguments_json*/) {
  nlohmann::json text;
  if (tool.qualified_name == kOnboardingTool) {
    text = "Onboarding is not set up yet in this version of Las. To federate surfaces, sign "
           "a release (see docs/FIRST-RELEASE.md) and set LAS_RELEASE_MANIFEST, "
           "LAS_RELEASE_SIGNATURE, LAS_TRUST_STORE, LAS_RELEASE_WATERMARK and LAS_WORKSPACE.";
  } else {
    text = "Unknown Las tool.";
  }
  return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
}

}  // namespace las::tools
