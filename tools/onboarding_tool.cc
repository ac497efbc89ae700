#include "tools/onboarding_tool.h"

namespace las::tools {

void AddOnboardingTool(BuiltinTools& tools) {
  tools.Add("onboarding",
            "Las's first-use journey: what is set up, what to do next. (Not set up yet in this "
            "version: it reports that.)",
            R"({"type":"object","properties":{"action":{"type":"string","enum":["status"]}},)"
            R"("additionalProperties":false})",
            [](const SessionInfo&, const std::string&, std::function<void(ToolCallReply)> done) {
              done(ToolCallReply::Result(TextResult(
                  "Onboarding is not set up yet in this version of Las. To federate surfaces, "
                  "sign a release (see docs/FIRST-RELEASE.md) and set LAS_RELEASE_MANIFEST, "
                  "LAS_RELEASE_SIGNATURE, LAS_TRUST_STORE, LAS_RELEASE_WATERMARK and "
                  "LAS_WORKSPACE.")));
            });
}

}  // namespace las::tools
