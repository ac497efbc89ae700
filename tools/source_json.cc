#include "tools/source_json.h"

#include <algorithm>
#include <string>
#include <utility>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "tools/page_budget.h"

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
  return DumpJson(json, indent);
}

Json ToolEntry(const SourceTool& tool) {
  Json entry{{"name", tool.name}, {"title", tool.title}, {"description", tool.description},
             {"definition_sha256", tool.definition_sha256}};
  entry["inputSchema"] = tool.input_schema_json.empty()
                             ? Json(nullptr)
                             : Json::parse(tool.input_schema_json, nullptr, false);
  return entry;
}

Json ItemEntry(const CapabilityItem& item, bool resource) {
  Json entry{{"name", item.name}, {"description", item.description}};
  if (resource) {
    entry["uri"] = item.uri;
    entry["mimeType"] = item.mime_type;
  }
  return entry;
}

constexpr const char* kEntryKinds[] = {"tools", "prompts", "resources", "reducers"};

// Entry `index` of the source's entries in the order of kEntryKinds, with its kind.
std::pair<const char*, Json> EntryAt(const Source& source, size_t index) {
  if (index < source.tools.size()) return {kEntryKinds[0], ToolEntry(source.tools[index])};
  index -= source.tools.size();
  if (index < source.prompts.size()) {
    return {kEntryKinds[1], ItemEntry(source.prompts[index], false)};
  }
  index -= source.prompts.size();
  if (index < source.resources.size()) {
    return {kEntryKinds[2], ItemEntry(source.resources[index], true)};
  }
  index -= source.resources.size();
  return {kEntryKinds[3], ItemEntry(source.reducers[index], false)};
}

size_t EntryCount(const Source& source) {
  return source.tools.size() + source.prompts.size() + source.resources.size() +
         source.reducers.size();
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
  for (const char* kind : kEntryKinds) out[kind] = Json::array();
  for (size_t i = 0; i < EntryCount(source); ++i) {
    auto [kind, entry] = EntryAt(source, i);
    out[kind].push_back(std::move(entry));
  }
  return Dump(out, indent);
}

std::string SourceDetailPageJson(const Source& source, size_t offset) {
  Json out = Header(source);
  for (const char* kind : kEntryKinds) out[kind] = Json::array();
  const size_t total = EntryCount(source);
  size_t next = std::min(offset, total);
  // The paging members are counted with the header, at their longest (set for good below).
  out["offset"] = next;
  out["next_offset"] = total;
  out["truncated"] = false;
  PageBudget budget;
  budget.TryTake(Dump(out, -1));
  for (const size_t first = next; next < total; ++next) {
    auto [kind, entry] = EntryAt(source, next);
    const bool fits = budget.TryTake(Dump(entry, -1), std::to_string(next + 1));
    if (!fits && next > first) break;
    out[kind].push_back(std::move(entry));
    if (!fits) {  // one entry larger than a page is a page of its own: a page makes progress
      ++next;
      break;
    }
  }
  out["offset"] = std::min(offset, total);
  out["next_offset"] = next < total ? Json(next) : Json(nullptr);
  out["truncated"] = next < total;
  return Dump(out, -1);
}

}  // namespace las::tools
