// The federated catalog: every tool a client may see, as `surface__tool`, built from the
// admitted surfaces' live tools/list (already proven equal to the signed bindings) plus
// Las's own `las__*` tools. Immutable once built; memoized for the life of the process.
//
// Work done once per tool when it enters the catalog (not per request): its `tools/list`
// entry as JSON text (spliced into every answer) and its search keys (tools/tool_search.h).
// Every mutation gives the catalog a new process-unique version(), so a cache of anything
// derived from it (tools/tools_list_cache.h) can tell it is stale.
//
// Thread safety: build on one thread, then read from any (the memoized unfiltered
// ToolsListJson() is filled on first use: call it once after building, or from one thread).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/capability_item.h"
#include "trust/argument_schema.h"
#include "trust/manifest.h"
#include "trust/tool_binding_check.h"

namespace las::tools {

class SearchIndex;  // tools/tool_search.h

inline constexpr std::string_view kNameSeparator = "__";

// Lower-cased text a search query is matched against (tools/tool_search.h).
struct SearchKeys {
  bool ready = false;  // false: not precomputed (SearchTools computes them per query)
  std::string name;    // qualified name
  std::string title;
  std::string description;
  std::vector<std::string> properties;  // top-level input-schema property names
};

struct CatalogTool {
  std::string qualified_name;  // surface__tool
  std::string surface;         // "las" for Las's own tools
  std::string tool;            // the child's original name
  std::optional<std::string> description;
  std::string title;  // the child's display title, if it gave one (unsigned; search only)
  std::string input_schema_json;
  // hex SHA-256 over the signed schema and description digests: what a grant names.
  std::string definition_sha256;
  std::map<std::string, std::string> credential_templates;  // argument -> credential name
  // The input schema compiled once; every call's arguments are validated against it.
  std::shared_ptr<const trust::ArgumentSchema> schema;
  bool builtin = false;
  // Precomputed by Catalog (empty/not ready on a tool built by hand):
  std::string list_entry_json;  // {"name":…,"description":…,"inputSchema":…} as in tools/list
  SearchKeys search;
};

class Catalog {
 public:
  // Adds an admitted surface's tools. `live` must have passed CheckToolList(binding).
  // A tool whose signed schema cannot be compiled for validation is left out (a call
  // could never be checked); its name is returned with why: trust::kSchemaUnsupported, or
  // "io-error" when memory ran out compiling it (no verdict on the schema).
  std::vector<std::pair<std::string, std::string>> AddSurface(const trust::SurfaceBinding& binding,
                                      const std::vector<trust::LiveTool>& live);
  void AddBuiltin(CatalogTool tool);
  // Records an admitted surface's prompts, resources and tool titles (tool name -> title),
  // replacing what its previous child declared (a tool missing from `titles` has none).
  // Unsigned: inventory and search only.
  void SetSurfaceExtras(const std::string& surface, std::vector<CapabilityItem> prompts,
                        std::vector<CapabilityItem> resources,
                        const std::map<std::string, std::string>& titles = {});

  const CatalogTool* Find(std::string_view qualified_name) const;
  const std::vector<CatalogTool>& tools() const { return tools_; }  // sorted by name
  // The `tools/list` result object, JSON text (computed once).
  const std::string& ToolsListJson() const;
  // The `tools/list` result object of the tools `keep` accepts (not memoized): the
  // precomputed entries spliced together, byte-identical to filtering ToolsListJson().
  std::string ToolsListJson(const std::function<bool(const CatalogTool&)>& keep) const;
  // The inverted index of the tools' search keys (tools/tool_search.h), built on first use
  // after a mutation (same threading as ToolsListJson()).
  const SearchIndex& search_index() const;
  // Changes (to a value never used before in this process) on every mutation.
  uint64_t version() const { return version_; }
  // A surface's prompts and resources, sorted by name; empty when it offered none.
  const std::vector<CapabilityItem>& PromptsOf(std::string_view surface) const;
  const std::vector<CapabilityItem>& ResourcesOf(std::string_view surface) const;

 private:
  std::vector<CatalogTool> tools_;
  std::map<std::string, std::vector<CapabilityItem>, std::less<>> prompts_;
  std::map<std::string, std::vector<CapabilityItem>, std::less<>> resources_;
  mutable std::string tools_list_json_;
  mutable std::shared_ptr<const SearchIndex> search_index_;
  uint64_t version_ = 0;
};

// The `tools/list` entry of one tool as JSON text (what Catalog precomputes).
std::string ToolsListEntryJson(const CatalogTool& tool);
// The input schema as clients see it (tools/list, las__describe): the signed one without
// the arguments Las fills in from credentials (out of "properties" and "required"), since a
// call that supplies one is refused (credential-override), and with "type": "object" in
// place of an absent root "type" or a list of types (MCP clients require it; arguments are
// one JSON object either way). Validation uses the signed one.
std::string ListedInputSchemaJson(const CatalogTool& tool);

// "<surface>__<tool>"
std::string QualifiedName(std::string_view surface, std::string_view tool);
// The definition digest of a signed tool binding (see CatalogTool::definition_sha256).
std::string DefinitionDigest(const trust::ToolBinding& binding);

}  // namespace las::tools
