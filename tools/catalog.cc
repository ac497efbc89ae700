#include "tools/catalog.h"

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "tools/definition_digest.h"
#include "tools/tool_search.h"
#include "trust/digest.h"

namespace las::tools {
namespace {

uint64_t NextVersion() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Computes what a tool carries precomputed (CatalogTool::list_entry_json, search).
void Prepare(CatalogTool& tool) {
  tool.list_entry_json = ToolsListEntryJson(tool);
  tool.search = SearchKeysOf(tool);
}

void SortByName(std::vector<CatalogTool>& tools) {
  std::sort(tools.begin(), tools.end(),
            [](const auto& a, const auto& b) { return a.qualified_name < b.qualified_name; });
}

// MCP clients read an inputSchema as an object schema: the official SDK refuses the whole
// tools/list unless each root "type" is "object". A root without one, or with a list of types
// (trust::CompileToolInputSchema admits only lists holding "object"), validates the same
// object arguments with "type": "object", which is listed first. The signed digest stays
// over the schema as the child serves it.
nlohmann::ordered_json WithObjectType(nlohmann::ordered_json schema) {
  if (!schema.is_object()) return schema;
  const auto type = schema.find("type");
  if (type != schema.end() && !type->is_array()) return schema;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["type"] = "object";
  for (auto& [key, value] : schema.items()) {
    if (key != "type") out[key] = std::move(value);
  }
  return out;
}

// The SDK also refuses the whole list when a value of "properties" is not an object: the
// boolean schemas true and false (valid JSON Schema) are listed as {} and {"not": {}},
// which validate the same (probe CU1).
void WithObjectProperties(nlohmann::ordered_json& schema) {
  auto properties = schema.find("properties");
  if (properties == schema.end() || !properties->is_object()) return;
  for (auto& [name, property] : properties->items()) {
    if (!property.is_boolean()) continue;
    property = property.get<bool>()
                   ? nlohmann::ordered_json::object()
                   : nlohmann::ordered_json{{"not", nlohmann::ordered_json::object()}};
  }
}

nlohmann::ordered_json ListedInputSchema(const CatalogTool& tool) {
  nlohmann::ordered_json schema =
      WithObjectType(nlohmann::ordered_json::parse(tool.input_schema_json, nullptr, false));
  if (!schema.is_object()) return schema;
  WithObjectProperties(schema);
  if (tool.credential_templates.empty()) return schema;
  for (const auto& [argument, credential] : tool.credential_templates) {
    if (auto properties = schema.find("properties"); properties != schema.end() && properties->is_object()) {
      properties->erase(argument);
    }
    if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
      required->erase(std::remove(required->begin(), required->end(), argument), required->end());
    }
  }
  return schema;
}

}  // namespace

std::string ListedInputSchemaJson(const CatalogTool& tool) {
  return DumpJson(ListedInputSchema(tool));
}

std::string ToolsListEntryJson(const CatalogTool& tool) {
  nlohmann::ordered_json entry;
  entry["name"] = tool.qualified_name;
  if (tool.description) entry["description"] = *tool.description;
  entry["inputSchema"] = ListedInputSchema(tool);
  return DumpJson(entry);
}

std::string QualifiedName(std::string_view surface, std::string_view tool) {
  std::string name(surface);
  name += kNameSeparator;
  name += tool;
  return name;
}

std::string DefinitionDigest(const trust::ToolBinding& binding) {
  return DefinitionDigestFromHex(trust::Sha256Hex(binding.input_schema_sha256),
                                 trust::Sha256Hex(binding.description_sha256),
                                 CredentialTemplatesDigestHex(binding.credential_templates));
}

std::vector<std::pair<std::string, std::string>> Catalog::AddSurface(
    const trust::SurfaceBinding& binding, const std::vector<trust::LiveTool>& live) {
  std::vector<std::pair<std::string, std::string>> left_out;
  for (const auto& tool : live) {
    const trust::ToolBinding* signed_tool = binding.FindTool(tool.name);
    if (signed_tool == nullptr) continue;  // impossible after CheckToolList; never widen
    auto schema = trust::CompileToolInputSchema(tool.input_schema_json);
    if (!schema.ok()) {
      left_out.emplace_back(tool.name, schema.status().code() == Code::kIo
                                           ? std::string(trust::ReasonName(trust::Reason::kIoError))
                                           : std::string(trust::kSchemaUnsupported));
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
    Prepare(entry);
    tools_.push_back(std::move(entry));
  }
  SortByName(tools_);
  tools_list_json_.clear();
  version_ = NextVersion();
  search_index_.reset();
  return left_out;
}

void Catalog::AddBuiltin(CatalogTool tool) {
  tool.builtin = true;
  Prepare(tool);
  tools_.push_back(std::move(tool));
  SortByName(tools_);
  tools_list_json_.clear();
  version_ = NextVersion();
  search_index_.reset();
}

const CatalogTool* Catalog::Find(std::string_view qualified_name) const {
  auto it = std::lower_bound(
      tools_.begin(), tools_.end(), qualified_name,
      [](const CatalogTool& tool, std::string_view name) { return tool.qualified_name < name; });
  if (it == tools_.end() || it->qualified_name != qualified_name) return nullptr;
  return &*it;
}

namespace {

// {"tools":[entry,entry,...]}: the same bytes nlohmann gives for the whole object, since
// each entry is dumped compactly with the same settings.
std::string ToolsList(const std::vector<CatalogTool>& all,
                      const std::function<bool(const CatalogTool&)>* keep) {
  static constexpr std::string_view kHead = "{\"tools\":[";
  static constexpr std::string_view kTail = "]}";
  std::vector<const CatalogTool*> kept;
  kept.reserve(all.size());
  size_t size = kHead.size() + kTail.size();
  for (const auto& tool : all) {
    if (keep != nullptr && !(*keep)(tool)) continue;
    kept.push_back(&tool);
    size += tool.list_entry_json.size() + 1;
  }
  std::string out;
  out.reserve(size);
  out += kHead;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i != 0) out += ',';
    out += kept[i]->list_entry_json;
  }
  out += kTail;
  return out;
}

const std::vector<CapabilityItem>& ItemsOf(
    const std::map<std::string, std::vector<CapabilityItem>, std::less<>>& items,
    std::string_view surface) {
  static const std::vector<CapabilityItem> kNone;
  auto it = items.find(surface);
  return it == items.end() ? kNone : it->second;
}

}  // namespace

const std::string& Catalog::ToolsListJson() const {
  if (tools_list_json_.empty()) tools_list_json_ = ToolsList(tools_, nullptr);
  return tools_list_json_;
}

const SearchIndex& Catalog::search_index() const {
  if (!search_index_) search_index_ = std::make_shared<const SearchIndex>(tools_);
  return *search_index_;
}

std::string Catalog::ToolsListJson(const std::function<bool(const CatalogTool&)>& keep) const {
  return ToolsList(tools_, &keep);
}

void Catalog::SetSurfaceExtras(const std::string& surface, std::vector<CapabilityItem> prompts,
                               std::vector<CapabilityItem> resources,
                               const std::map<std::string, std::string>& titles) {
  for (auto& tool : tools_) {
    if (tool.builtin || tool.surface != surface) continue;
    // Replaced whole, as the prompts and resources are: a title the child no longer
    // declares is dropped, not kept from its previous child (probe CG3).
    auto it = titles.find(tool.tool);
    std::string title = it != titles.end() ? it->second : std::string();
    if (title != tool.title) {
      tool.title = std::move(title);
      tool.search = SearchKeysOf(tool);
    }
  }
  version_ = NextVersion();
  search_index_.reset();
  auto by_name = [](const CapabilityItem& a, const CapabilityItem& b) { return a.name < b.name; };
  std::sort(prompts.begin(), prompts.end(), by_name);
  std::sort(resources.begin(), resources.end(), by_name);
  prompts_[surface] = std::move(prompts);
  resources_[surface] = std::move(resources);
}

const std::vector<CapabilityItem>& Catalog::PromptsOf(std::string_view surface) const {
  return ItemsOf(prompts_, surface);
}

const std::vector<CapabilityItem>& Catalog::ResourcesOf(std::string_view surface) const {
  return ItemsOf(resources_, surface);
}

}  // namespace las::tools
