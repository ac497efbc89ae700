// The discovery tools, for clients with tight context windows and tool-count limits
// (docs/SOURCES.md):
//   las__search {query, limit?}          rank visible tools (tools/tool_search.h); each
//                                        result: name, source, title, one-line summary
//                                        and score; no schema
//   las__describe {name}                 one tool's full entry with its input schema; for
//                                        an unknown name a tool error with the nearest names
//   las__list_tools {source, offset?, limit?}  a window of one source's name-sorted tools
//   las__call {name, arguments?}         calls a tool by name through the gateway's own
//                                        CallTool, so every guard, policy and record applies;
//                                        it refuses to call itself
// Visible = the tool exists in this server's catalog and its source is enabled. las.admin
// tools exist only under `las serve --admin`, so las__call cannot reach them otherwise.
//
// Threading: handlers run on the loop; they read the federation and gateway through
// context.links at call time.
#pragma once

#include "tools/builtin_tools.h"
#include "tools/las_tools.h"

namespace las::tools {

void AddDiscoveryTools(BuiltinTools& tools, const LasToolContext& context);

// `las__read_doc {name}`: the text of a las.docs resource (by name or las://docs/ uri) or
// prompt; a tool error listing the names when there is no such doc; refused while
// las.docs is disabled. Also sets tools.SetDocsEnabled from las.docs's source state, which
// the gateway's resources/* and prompts/* follow.
void AddDocsTool(BuiltinTools& tools, const LasToolContext& context);

}  // namespace las::tools
