// The las.admin tools, registered only when the server runs with `--admin`:
//   las__list_sources {offset?, limit?, preview?}  the compact, paged inventory
//                                                 (tools/source_json.h SourceListJson)
//   las__inspect_source {id}                       one source's full inventory with schemas
//   las__enable_source {id}                        appends SourceEnabled
//   las__disable_source {id, reason?}              appends SourceDisabled ("las",
//                                                 "las.std", "las.admin" cannot be)
//   las__inspect_events {from?, limit?}            events as JSON (log/FORMAT.md §JSON),
//                                                 at most 64 KiB a page (next_from)
// Enable/disable answer once the event is durable and the server's live projections have
// folded it, so the next tools/list and call already see it; a source already in the asked
// state is answered "changed": false and nothing is recorded.
//
// Threading: handlers run on the loop; appends go through the loop appender
// (tools/loop_appender.h) and complete on the loop.
#pragma once

#include "tools/builtin_tools.h"
#include "tools/las_tools.h"

namespace las::tools {

void AddAdminTools(BuiltinTools& tools, const LasToolContext& context);

}  // namespace las::tools
