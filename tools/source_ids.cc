#include "tools/source_ids.h"

namespace las::tools {

bool IsSystemSource(std::string_view id) {
  return id == kSourceLas || id == kSourceDocs || id == kSourceStd || id == kSourceAdmin;
}

bool IsAdminTool(std::string_view name) {
  return name == kListSourcesTool || name == kInspectSourceTool || name == kEnableSourceTool ||
         name == kDisableSourceTool || name == kInspectEventsTool;
}

bool IsDiscoveryTool(std::string_view name) {
  return name == kSearchTool || name == kDescribeTool || name == kListToolsTool ||
         name == kCallTool;
}

std::string_view BuiltinSourceOf(std::string_view qualified_name) {
  // The docs as a tool belong to the docs' source: off with it (probe CQ1).
  if (qualified_name == kReadDocTool) return kSourceDocs;
  return IsAdminTool(qualified_name) ? kSourceAdmin : kSourceLas;
}

std::string SourceIdOf(const CatalogTool& tool) {
  return tool.builtin ? std::string(BuiltinSourceOf(tool.qualified_name)) : tool.surface;
}

}  // namespace las::tools
