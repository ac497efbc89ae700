#include "tools/docs_mcp.h"

#include <nlohmann/json.hpp>

#include "tools/docs_source.h"

namespace las::tools {
namespace {

using nlohmann::json;

constexpr std::string_view kMarkdown = "text/markdown";

}  // namespace

std::string DocsResourcesListJson(bool enabled) {
  json resources = json::array();
  if (enabled) {
    for (const auto& doc : DocResources()) {
      resources.push_back({{"uri", doc.uri},
                           {"name", doc.name},
                           {"description", doc.description},
                           {"mimeType", kMarkdown}});
    }
  }
  return json{{"resources", resources}}.dump();
}

std::optional<std::string> DocsResourceReadJson(bool enabled, std::string_view uri) {
  if (!enabled) return std::nullopt;
  for (const auto& doc : DocResources()) {
    if (doc.uri != uri) continue;
    json content = {{"uri", doc.uri}, {"mimeType", kMarkdown}, {"text", doc.text}};
    return json{{"contents", json::array({content})}}.dump();
  }
  return std::nullopt;
}

std::string DocsPromptsListJson(bool enabled) {
  json prompts = json::array();
  if (enabled) {
    for (const auto& prompt : DocPrompts()) {
      prompts.push_back({{"name", prompt.name},
                         {"description", prompt.description},
                         {"arguments", json::array()}});
    }
  }
  return json{{"prompts", prompts}}.dump();
}

std::optional<std::string> DocsPromptGetJson(bool enabled, std::string_view name) {
  if (!enabled) return std::nullopt;
  for (const auto& prompt : DocPrompts()) {
    if (prompt.name != name) continue;
    json message = {{"role", "user"}, {"content", {{"type", "text"}, {"text", prompt.text}}}};
    return json{{"description", prompt.description}, {"messages", json::array({message})}}.dump();
  }
  return std::nullopt;
}

}  // namespace las::tools
