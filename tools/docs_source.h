// las.docs: Las's operator manual, troubleshooting and authoring guides, shipped in the
// binary as MCP-style resources (uri `las://docs/<name>`, text/markdown) and prompts.
// They are listed in the source inventory, read through the `las__read_doc` tool
// (owned by the `las` source; refused while `las.docs` is disabled) and served as MCP
// resources/prompts by the gateway (tools/docs_mcp.h).
//
// Thread safety: the tables are immutable constants.
#pragma once

#include <string_view>
#include <vector>

#include "tools/capability_item.h"

namespace las::tools {

struct DocText {
  std::string_view name;         // "operator-manual"
  std::string_view uri;          // "las://docs/operator-manual"; empty for a prompt
  std::string_view description;  // one line
  std::string_view text;         // markdown (resource) or the prompt's message text
};

const std::vector<DocText>& DocResources();
const std::vector<DocText>& DocPrompts();
// A resource by name or uri, or a prompt by name; nullptr when none.
const DocText* FindDoc(std::string_view name_or_uri);
// The inventory view of both tables.
std::vector<CapabilityItem> DocResourceItems();
std::vector<CapabilityItem> DocPromptItems();

// The standard state reducers las.std lists (implemented by the state tools).
std::vector<CapabilityItem> StdReducerItems();

}  // namespace las::tools
