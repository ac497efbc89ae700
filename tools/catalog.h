// The federated catalog: every tool a client may see, as `surface__tool`, built from the
// admitted surfaces' live tools/list (already proven equal to the signed bindings) plus
// Las's own `las__*` tools. Immutable once built; memoized for the life of the process.
//
// Thread safety: build on one thread, then read from any.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trust/argument_schema.h"
#include "trust/manifest.h"
#include "trust/tool_binding_check.h"

namespace las::tools {

inline constexpr std::string_view kNameSeparator = "__";

struct CatalogTool {
  std::string qualified_name;  // surface__tool
  std::string surface;         // "las" for Las's own tools
  std::string tool;            // the child's original name
  std::optional<std::string> description;
  std::string input_schema_json;
  // hex SHA-256 over the signed schema and description digests: what a grant names.
  std::string definition_sha256;
  std::map<std::string, std::string> credential_templates;  // argument -> credential name
  // The input schema compiled once; every call's arguments are validated against it.
  std::shared_ptr<const trust::ArgumentSchema> schema;
  bool builtin = false;
};

class Catalog {
 public:
  // Adds an admitted surface's tools. `live` must have passed CheckToolList(binding).
  // A tool whose signed schema cannot be compiled for validation is left out (a call
  // could never be checked); its name is returned.
  std::vector<std::string> AddSurface(const trust::SurfaceBinding& binding,
                                      const std::vector<trust::LiveTool>& live);
  void AddBuiltin(CatalogTool tool);

  const CatalogTool* Find(std::string_view qualified_name) const;
  const std::vector<CatalogTool>& tools() const { return tools_; }  // sorted by name
  // The `tools/list` result object, JSON text (computed once).
  const std::string& ToolsListJson() const;

 private:
  std::vector<CatalogTool> tools_;
  mutable std::string tools_list_json_;
};

// "<surface>__<tool>"
std::string QualifiedName(std::string_view surface, std::string_view tool);
// The definition digest of a signed tool binding (see CatalogTool::definition_sha256).
std::string DefinitionDigest(const trust::ToolBinding& binding);

}  // namespace las::tools
