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

std::string SourceIdOf(const CatalogTool& tool) {
  if (!tool.builtin) return tool.surface;
  // The docs as a tool belong to the docs' source: off with it (probe CQ1).
  if (tool.qualified_name == kReadDocTool) return std::string(kSourceDocs);
  return std::string(IsAdminTool(tool.qualified_name) ? kSourceAdmin : kSourceLas);
}

}  // namespace las::tools
