#include "tools/sources.h"

#include <algorithm>
#include <set>

#include "tools/docs_source.h"
#include "tools/registry.h"
#include "tools/source_ids.h"

namespace las::tools {
namespace {

template <typename T>
void SortByName(std::vector<T>& items) {
  std::sort(items.begin(), items.end(), [](const T& a, const T& b) { return a.name < b.name; });
}

Source System(std::string_view id, std::string description, SourceVisibility visibility,
              SourcePermissions permissions) {
  Source source;
  source.id = std::string(id);
  source.kind = "system";
  source.description = std::move(description);
  source.visibility = visibility;
  source.permissions = permissions;
  return source;
}

// The surfaces the log names — recorded in a catalog or named by a toggle — that are not
// Las's own sources.
std::set<std::string> SurfacesTheLogNames(const reducers::RecordedCatalog* recorded,
                                          const reducers::SourceToggles* toggles) {
  std::set<std::string> ids;
  if (recorded != nullptr) {
    for (const auto& [name, surface] : recorded->surfaces) ids.insert(name);
  }
  if (toggles != nullptr) {
    for (const auto& [id, toggle] : toggles->by_id) ids.insert(id);
  }
  std::erase_if(ids, [](const std::string& id) { return IsSystemSource(id); });
  return ids;
}

}  // namespace

std::vector<Source> BuildInventory(const InventoryFacts& facts) {
  std::vector<Source> out;
  Source las = System(kSourceLas,
                      facts.las_tools_known
                          ? "Las's own tools: discovery (las__search, las__describe, "
                            "las__list_tools, las__call), onboarding (las__onboarding), "
                            "state and blackboard (las__state_*), messages (las__message_*), "
                            "handles (las__handle_read), grants (las__grants, "
                            "las__grant_delegate, las__grant_revoke)"
                          : "Las's own tools (listed by a running server; the log does not "
                            "record them)",
                      {true, true, true}, {true, true, false, false});
  Source admin = System(kSourceAdmin,
                        facts.admin ? "Privileged tools: list, inspect, enable and disable "
                                      "sources; inspect events"
                                    : "Privileged tools, served only by `las serve --admin`",
                        {false, facts.admin, true}, {false, false, true, false});
  // Offline the tool count is 0 like las's: say why rather than look empty (probe FC5).
  Source docs = System(kSourceDocs,
                       facts.las_tools_known
                           ? "Operator manual, troubleshooting and authoring guides (read "
                             "with las__read_doc)"
                           : "Operator manual, troubleshooting and authoring guides (read "
                             "with las__read_doc, which a running server lists; the log "
                             "does not record it)",
                       {true, true, true}, {true, false, false, false});
  docs.resources = DocResourceItems();
  docs.prompts = DocPromptItems();
  for (const auto& tool : facts.las_tools) {
    const std::string_view owner = BuiltinSourceOf(tool.name);
    if (owner == kSourceAdmin) {
      if (facts.admin) admin.tools.push_back(tool);
    } else {
      (owner == kSourceDocs ? docs : las).tools.push_back(tool);
    }
  }
  out.push_back(std::move(las));
  out.push_back(std::move(admin));
  out.push_back(std::move(docs));
  Source std_source = System(kSourceStd, "The standard state reducers",
                             {true, false, true}, {true, false, false, false});
  std_source.reducers = StdReducerItems();
  out.push_back(std::move(std_source));

  for (const auto& connection : facts.connections) {
    Source source;
    source.id = connection.id;
    source.kind = "connection";
    source.visibility = {true, true, true};
    source.permissions = {false, true, false, false};
    if (connection.loaded) {
      source.description = "Surface " + connection.id + ": " +
                           std::to_string(connection.tools.size()) + " signed tool" +
                           (connection.tools.size() == 1 ? "" : "s");
      source.tools = connection.tools;
      source.prompts = connection.prompts;
      source.resources = connection.resources;
    } else {
      source.description = "No catalog loaded for " + connection.id + ": " +
                           (connection.reason.empty() ? "unknown" : connection.reason);
    }
    out.push_back(std::move(source));
  }
  for (auto& source : out) {
    SortByName(source.tools);
    SortByName(source.prompts);
    SortByName(source.resources);
    SortByName(source.reducers);
    if (facts.toggles != nullptr) {
      auto it = facts.toggles->by_id.find(source.id);
      if (it != facts.toggles->by_id.end() && !it->second.enabled) {
        source.enabled = false;
        source.disabled_reason = it->second.reason;
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Source& a, const Source& b) { return a.id < b.id; });
  return out;
}

const Source* FindSource(const std::vector<Source>& sources, std::string_view id) {
  for (const auto& source : sources) {
    if (source.id == id) return &source;
  }
  return nullptr;
}

InventoryFacts FactsFromFederation(const Catalog& catalog,
                                   const std::vector<SurfaceState>& surfaces, bool admin,
                                   const reducers::SourceToggles* toggles,
                                   const reducers::RecordedCatalog* recorded) {
  InventoryFacts facts;
  facts.admin = admin;
  facts.toggles = toggles;
  std::set<std::string> unlisted = SurfacesTheLogNames(recorded, toggles);
  for (const auto& state : surfaces) {
    unlisted.erase(state.name);
    ConnectionFacts connection;
    connection.id = state.name;
    connection.loaded = state.admitted;
    connection.reason = state.reason;
    if (state.admitted) {
      connection.prompts = catalog.PromptsOf(state.name);
      connection.resources = catalog.ResourcesOf(state.name);
    }
    facts.connections.push_back(std::move(connection));
  }
  for (const auto& id : unlisted) {
    facts.connections.push_back({id, false, std::string(kReasonNotInRegistry), {}, {}, {}});
  }
  for (const auto& tool : catalog.tools()) {
    // The schema as tools/list shows it: without the arguments Las fills with credentials.
    SourceTool entry{tool.qualified_name, tool.title, tool.description.value_or(""),
                     ListedInputSchemaJson(tool), tool.definition_sha256};
    if (tool.builtin) {
      facts.las_tools.push_back(std::move(entry));
      continue;
    }
    for (auto& connection : facts.connections) {
      if (connection.id == tool.surface) connection.tools.push_back(entry);
    }
  }
  return facts;
}

InventoryFacts FactsFromLog(const reducers::RecordedCatalog& catalog,
                            const std::vector<std::string>& configured,
                            const reducers::SourceToggles* toggles) {
  InventoryFacts facts;
  facts.las_tools_known = false;
  facts.toggles = toggles;
  std::set<std::string> ids = SurfacesTheLogNames(&catalog, toggles);
  ids.insert(configured.begin(), configured.end());
  for (const auto& id : ids) {
    ConnectionFacts connection;
    connection.id = id;
    auto it = catalog.surfaces.find(id);
    if (it == catalog.surfaces.end()) {
      connection.reason = "not-recorded";
    } else if (!it->second.admitted) {
      connection.reason = it->second.reason;
    } else {
      connection.loaded = true;
      for (const auto& tool : it->second.tools) {
        connection.tools.push_back(
            {QualifiedName(id, tool.name), "", "", "", ""});
      }
    }
    facts.connections.push_back(std::move(connection));
  }
  return facts;
}

}  // namespace las::tools
