// tools/catalog.h ListedInputSchemaJson: clients are not asked for what Las fills in.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/catalog.h"

namespace las::tools {
namespace {

// Probe L5: tools/list showed a templated argument as required, and supplying it is
// refused as credential-override.
TEST(ListedInputSchema, TheArgumentsLasFillsInAreNotListed) {
  CatalogTool tool;
  tool.qualified_name = "probe__login";
  tool.input_schema_json =
      R"({"type":"object","properties":{"api_key":{"type":"string"},"mode":{"type":"string"}},)"
      R"("required":["api_key","mode"],"additionalProperties":false})";
  tool.credential_templates = {{"api_key", "probe.api-key"}};
  const auto listed = nlohmann::json::parse(ListedInputSchemaJson(tool));
  EXPECT_EQ(listed["properties"], nlohmann::json::parse(R"({"mode":{"type":"string"}})"));
  EXPECT_EQ(listed["required"], nlohmann::json::parse(R"(["mode"])"));
  EXPECT_EQ(listed["additionalProperties"], false);
  const auto entry = nlohmann::json::parse(ToolsListEntryJson(tool));
  EXPECT_EQ(entry["inputSchema"], listed) << "tools/list shows the same";

  tool.credential_templates.clear();
  EXPECT_EQ(nlohmann::json::parse(ListedInputSchemaJson(tool)), nlohmann::json::parse(tool.input_schema_json))
      << "a tool without templates is listed as signed";
}

}  // namespace
}  // namespace las::tools
