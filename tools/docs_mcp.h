// las.docs as real MCP resources and prompts: the result objects of `resources/list`,
// `resources/read`, `prompts/list` and `prompts/get` (MCP 2024-11-05 shapes) built from the
// tables of tools/docs_source.h. The gateway serves these (and only these: a child's own
// resources and prompts are inventoried in its source but not passed through).
//
//   resources/list -> {"resources":[{uri, name, description, mimeType:"text/markdown"}]}
//   resources/read -> {"contents":[{uri, mimeType, text}]}
//   prompts/list   -> {"prompts":[{name, description, arguments:[]}]}
//   prompts/get    -> {"description", "messages":[{role:"user", content:{type:"text", text}}]}
//
// `enabled` is whether source las.docs is enabled (tools/source_guard.h SourceEnabled):
// disabled, the lists are empty and every read/get is nullopt, as for an unknown uri/name.
// The prompts take no arguments; arguments a client sends are ignored.
//
// Pure functions over immutable constants: thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace las::tools {

std::string DocsResourcesListJson(bool enabled);
// nullopt: disabled, or no resource has exactly this uri.
std::optional<std::string> DocsResourceReadJson(bool enabled, std::string_view uri);
std::string DocsPromptsListJson(bool enabled);
// nullopt: disabled, or no prompt has exactly this name.
std::optional<std::string> DocsPromptGetJson(bool enabled, std::string_view name);

}  // namespace las::tools
