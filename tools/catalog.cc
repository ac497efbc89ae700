#include "tools/catalog.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "trust/digest.h"

namespace las::tools {

std::string QualifiedName(std::string_view surface, std::string_view tool) {
  std::string name(surface);
  name += kNameSeparator;
  name += tool;
  return name;
}

std::string DefinitionDigest(const trust::ToolBinding& binding) {
  // Label, then both signed digests: a change to either is a new definition.
  std::string material = "las.tool-definition.v1:";
  material += trust::Sha256Hex(binding.input_schema_sha256);
  material += ':';
  material += trust::Sha256Hex(binding.description_sha256);
  return trust::Sha256Hex(trust::Sha256(material));
}

std::vector<std::string> Catalog::AddSurface(const trust::SurfaceBinding& binding,
                                             const std::vector<trust::LiveTool>& live) {
  std::vector<std::string> left_out;
  for (const auto& tool : live) {
    const trust::ToolBinding* signed_tool = binding.FindTool(tool.name);
    if (signed_tool == nullptr) continue;  // impossible after CheckToolList; never widen
    auto schema = trust::CompileArgumentSchema(tool.input_schema_json);
    if (!schema.ok()) {
      left_out.push_back(tool.name);
      continue;
    }
    CatalogTool entry;
    entry.schema = std::make_shared<const trust::ArgumentSchema>(std::move(*schema));
    entry.qualified_name = QualifiedName(binding.name, tool.name);
    entry.surface = binding.name;
    entry.tool = tool.name;
    entry.description = tool.description;
    entry.input_schema_json = tool.input_schema_json;
    entry.definition_sha256 = DefinitionDigest(*signed_tool);
    entry.credential_templates = signed_tool->credential_templates;
    tools_.push_back(std::move(entry));
  }
  std::sort(tools_.begin(), tools_.end(),
            [](const auto& a, const auto& b) { return a.qualified_name < b.qualified_name; });
  tools_list_json_.clear();
  return left_out;
}

void Catalog::AddBuiltin(CatalogTool tool) {
  tool.builtin = true;
  tools_.push_back(std::move(tool));
  std::sort(tools_.begin(), tools_.end(),
            [](const auto& a, const auto& b) { return a.qualified_name < b.qualified_name; });
  tools_list_json_.clear();
}

const CatalogTool* Catalog::Find(std::string_view qualified_name) const {
  auto it = std::lower_bound(
      tools_.begin(), tools_.end(), qualified_name,
      [](const CatalogTool& tool, std::string_view name) { return tool.qualified_name < name; });
  if (it == tools_.end() || it->qualified_name != qualified_name) return nullptr;
  return &*it;
}

const std::string& Catalog::ToolsListJson() const {
  if (!tools_list_json_.empty()) return tools_list_json_;
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  for (const auto& tool : tools_) {
    nlohmann::ordered_json entry;
    entry["name"] = tool.qualified_name;
    if (tool.description) entry["description"] = *tool.description;
    entry["inputSchema"] = nlohmann::ordered_json::parse(tool.input_schema_json, nullptr, false);
    tools.push_back(std::move(entry));
  }
  tools_list_json_ = nlohmann::ordered_json{{"tools", std::move(tools)}}.dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return tools_list_json_;
}

}  // namespace las::tools
