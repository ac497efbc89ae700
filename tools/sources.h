// The source inventory: every capability Las offers, grouped by the source that owns it
// (docs/SOURCES.md). Sources are either `system` (las, las.docs, las.std, las.admin) or
// `connection` (one per configured surface, present even when it was not admitted: zero
// capabilities and the description "No catalog loaded for X: <reason code>").
//
// The inventory is built from plain facts (InventoryFacts) so that the running server
// (from its live federation) and the CLI (from the catalog as recorded in the log) share
// one model and one JSON shape (tools/source_json.h).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "reducers/recorded_catalog.h"
#include "reducers/sources.h"
#include "tools/capability_item.h"
#include "tools/catalog.h"
#include "tools/federation.h"

namespace las::tools {

struct SourceTool {
  std::string name;         // qualified: surface__tool / las__x
  std::string title;
  std::string description;
  std::string input_schema_json;  // empty when unknown (the log keeps only digests)
  std::string definition_sha256;  // or the recorded schema digest when read from the log
};

struct SourceVisibility {
  bool planner = true;
  bool mcp_client = true;
  bool admin_dashboard = true;
};

struct SourcePermissions {
  bool safe_for_workflow = false;
  bool calls_upstream = false;
  bool mutates_config = false;
  bool mutates_auth = false;
};

struct Source {
  std::string id;
  std::string kind;  // "system" or "connection"
  bool enabled = true;
  std::string disabled_reason;
  std::string description;
  SourceVisibility visibility;
  SourcePermissions permissions;
  std::vector<SourceTool> tools;              // sorted by name
  std::vector<CapabilityItem> prompts;        // sorted by name
  std::vector<CapabilityItem> resources;      // sorted by name
  std::vector<CapabilityItem> reducers;       // sorted by name (las.std)
};

// One configured (or recorded) surface.
struct ConnectionFacts {
  std::string id;
  bool loaded = false;   // a catalog is loaded (admitted)
  std::string reason;    // why not, a stable code
  std::vector<SourceTool> tools;
  std::vector<CapabilityItem> prompts;
  std::vector<CapabilityItem> resources;
};

struct InventoryFacts {
  std::vector<ConnectionFacts> connections;
  std::vector<SourceTool> las_tools;    // Las's own tools, admin ones included or not
  bool admin = false;                   // `las serve --admin`
  bool las_tools_known = true;          // false when read from a log (not recorded)
  const reducers::SourceToggles* toggles = nullptr;  // null: everything enabled
};

// Every source, sorted by id. las.admin is listed always (admin_dashboard), but it owns
// tools (and mcp_client visibility) only when `admin`.
std::vector<Source> BuildInventory(const InventoryFacts& facts);
// The source with that id, or nullptr.
const Source* FindSource(const std::vector<Source>& sources, std::string_view id);

// Both sets of facts list the same sources: the configured surfaces, every surface the log
// recorded and every source a toggle names — so that the CLI and a server agree on whether
// there is such a source, and a source disabled under another registry can be enabled
// again (probe DQ1).

// Facts from a running federation: the catalog (tools with schemas, prompts, resources)
// and every configured surface's state; the other surfaces have reason "not-in-registry".
InventoryFacts FactsFromFederation(const Catalog& catalog,
                                   const std::vector<SurfaceState>& surfaces, bool admin,
                                   const reducers::SourceToggles* toggles,
                                   const reducers::RecordedCatalog* recorded);
// Facts from the log: the configured surfaces plus every recorded one, their latest
// verdicts and recorded tool names (no schemas, no prompts or resources: the log does not
// record them). A surface never recorded has reason "not-recorded".
InventoryFacts FactsFromLog(const reducers::RecordedCatalog& catalog,
                            const std::vector<std::string>& configured,
                            const reducers::SourceToggles* toggles);

}  // namespace las::tools
