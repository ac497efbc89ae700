#include "tools/source_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace las::tools {
namespace {

using Json = nlohmann::ordered_json;

Json Header(const Source& source) {
  Json out;
  out["id"] = source.id;
  out["kind"] = source.kind;
  out["enabled"] = source.enabled;
  out["disabled_reason"] = source.disabled_reason;
  out["description"] = source.description;
  out["visibility"] = {{"planner", source.visibility.planner},
                       {"mcp_client", source.visibility.mcp_client},
                       {"admin_dashboard", source.visibility.admin_dashboard}};
  out["permissions"] = {{"safe_for_workflow", source.permissions.safe_for_workflow},
                        {"calls_upstream", source.permissions.calls_upstream},
                        {"mutates_config", source.permissions.mutates_config},
                        {"mutates_auth", source.permissions.mutates_auth}};
  out["counts"] = {{"tools", source.tools.size()},
                   {"prompts", source.prompts.size()},
                   {"resources", source.resources.size()},
                   {"reducers", source.reducers.size()}};
  return out;
}

template <typename T>
Json Preview(const std::vector<T>& items, size_t preview) {
  Json names = Json::array();
  for (size_t i = 0; i < items.size() && i < preview; ++i) names.push_back(items[i].name);
  return names;
}

std::string Dump(const Json& json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json Items(const std::vector<CapabilityItem>& items, bool resources) {
  Json out = Json::array();
  for (const auto& item : items) {
    Json entry{{"name", item.name}, {"description", item.description}};
    if (resources) {
      entry["uri"] = item.uri;
      entry["mimeType"] = item.mime_type;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string SourceListJson(const std::vector<Source>& sources, size_t offset, size_t limit,
                           size_t preview, int indent) {
  Json list = Json::array();
  const size_t begin = std::min(offset, sources.size());
  const size_t end = std::min(sources.size(), begin + limit);
  for (size_t i = begin; i < end; ++i) {
    const Source& source = sources[i];
    Json entry = Header(source);
    entry["preview"] = {{"tools", Preview(source.tools, preview)},
                        {"prompts", Preview(source.prompts, preview)},
                        {"resources", Preview(source.resources, preview)},
                        {"reducers", Preview(source.reducers, preview)}};
    entry["has_more"] = {{"tools", source.tools.size() > preview},
                         {"prompts", source.prompts.size() > preview},
                         {"resources", source.resources.size() > preview},
                         {"reducers", source.reducers.size() > preview}};
    list.push_back(std::move(entry));
  }
  Json out;
  out["sources"] = std::move(list);
  out["total"] = sources.size();
  out["offset"] = begin;
  out["next_offset"] = end < sources.size() ? Json(end) : Json(nullptr);
  out["has_more"] = end < sources.size();
  return Dump(out, indent);
}

std::string SourceDetailJson(const Source& source, int indent) {
  Json out = Header(source);
  Json tools = Json::array();
  for (const auto& tool : source.tools) {
    Json entry{{"name", tool.name}, {"title", tool.title}, {"description", tool.description},
               {"definition_sha256", tool.definition_sha256}};
    entry["inputSchema"] = tool.input_schema_json.empty()
                               ? Json(nullptr)
                               : Json::parse(tool.input_schema_json, nullptr, false);
    tools.push_back(std::move(entry));
  }
  out["tools"] = std::move(tools);
  out["prompts"] = Items(source.prompts, false);
  out["resources"] = Items(source.resources, true);
  out["reducers"] = Items(source.reducers, false);
  return Dump(out, indent);
}

}  // namespace las::tools
