// Source ids and which source owns a catalog tool (docs/SOURCES.md).
//
// Connection sources are named after their surface; the system sources are fixed:
// `las` (Las's own tools), `las.docs` (the operator manual and guides as resources and
// prompts), `las.std` (the standard state reducers) and `las.admin` (privileged tools,
// listed only under `las serve --admin`). A surface name never contains '.', so the ids
// never collide.
#pragma once

#include <string>
#include <string_view>

#include "tools/catalog.h"

namespace las::tools {

inline constexpr std::string_view kSourceLas = "las";
inline constexpr std::string_view kSourceDocs = "las.docs";
inline constexpr std::string_view kSourceStd = "las.std";
inline constexpr std::string_view kSourceAdmin = "las.admin";

// Sources that cannot be disabled: Las's own tools, the reducers the state tools are built
// on (a switch would do nothing), and the admin tools that switch sources back on.
inline bool IsProtectedSource(std::string_view id) {
  return id == kSourceLas || id == kSourceStd || id == kSourceAdmin;
}

// Las's own tool that reads the docs: of source las.docs, not las.
inline constexpr std::string_view kReadDocTool = "las__read_doc";

// The discovery tools a lazy `tools/list` keeps (plus las__call).
inline constexpr std::string_view kSearchTool = "las__search";
inline constexpr std::string_view kDescribeTool = "las__describe";
inline constexpr std::string_view kListToolsTool = "las__list_tools";
inline constexpr std::string_view kCallTool = "las__call";

// The las.admin tools (registered only with --admin).
inline constexpr std::string_view kListSourcesTool = "las__list_sources";
inline constexpr std::string_view kInspectSourceTool = "las__inspect_source";
inline constexpr std::string_view kEnableSourceTool = "las__enable_source";
inline constexpr std::string_view kDisableSourceTool = "las__disable_source";
inline constexpr std::string_view kInspectEventsTool = "las__inspect_events";

bool IsSystemSource(std::string_view id);
bool IsAdminTool(std::string_view qualified_name);
// las__search, las__describe, las__list_tools, las__call.
bool IsDiscoveryTool(std::string_view qualified_name);
// The source that owns Las's own tool `qualified_name`: `las.docs` for las__read_doc,
// `las.admin` for the admin tools, else `las`. The inventory files each tool under it, and
// the source guard decides by it, so what is listed is what is switched (probe DO1).
std::string_view BuiltinSourceOf(std::string_view qualified_name);
// The id of the source that owns `tool`: its surface, or BuiltinSourceOf for Las's own.
std::string SourceIdOf(const CatalogTool& tool);

}  // namespace las::tools
