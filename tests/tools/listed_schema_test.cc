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

// Probe AC5: the official SDK client refuses the whole tools/list when one inputSchema's
// root "type" is not "object"; a schema without one is listed with it, first.
TEST(ListedInputSchema, ARootWithoutTypeIsListedAsAnObjectSchema) {
  CatalogTool tool;
  tool.qualified_name = "probe__notype";
  tool.input_schema_json = R"({"properties":{"a":{"type":"string"}},"required":["a"]})";
  EXPECT_EQ(ListedInputSchemaJson(tool), R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]})");
  const auto entry = nlohmann::json::parse(ToolsListEntryJson(tool));
  EXPECT_EQ(entry["inputSchema"]["type"], "object");

  tool.input_schema_json = R"({"type":["null","object"],"properties":{}})";
  EXPECT_EQ(ListedInputSchemaJson(tool), R"({"type":"object","properties":{}})");
  tool.input_schema_json = R"({"properties":{},"type":"object"})";
  EXPECT_EQ(ListedInputSchemaJson(tool), tool.input_schema_json) << "an object schema is listed as signed";
}

}  // namespace
}  // namespace las::tools
