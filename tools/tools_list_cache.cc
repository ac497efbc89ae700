#include "tools/tools_list_cache.h"

namespace las::tools {

const std::string& ToolsListCache::Get(const Catalog& catalog,
                                       const std::vector<CallGuard*>& guards,
                                       const SessionInfo& session) {
  if (guards.empty()) return catalog.ToolsListJson();
  auto listed = [&](const CatalogTool& tool) {
    for (const CallGuard* guard : guards) {
      if (!guard->Listed(session, tool)) return false;
    }
    return true;
  };
  std::vector<uint64_t> generations;
  generations.reserve(guards.size());
  for (const CallGuard* guard : guards) {
    const std::optional<uint64_t> generation = guard->ListingGeneration(session);
    if (!generation) {
      ++builds_;
      uncached_ = catalog.ToolsListJson(listed);
      return uncached_;
    }
    generations.push_back(*generation);
  }
  auto it = by_agent_.find(session.agent_id);
  if (it != by_agent_.end() && it->second.catalog_version == catalog.version() &&
      it->second.generations == generations) {
    return it->second.json;
  }
  if (it == by_agent_.end()) {
    if (by_agent_.size() >= kMaxAgents) by_agent_.clear();
    it = by_agent_.emplace(session.agent_id, Entry{}).first;
  }
  ++builds_;
  it->second.catalog_version = catalog.version();
  it->second.generations = std::move(generations);
  it->second.json = catalog.ToolsListJson(listed);
  return it->second.json;
}

}  // namespace las::tools
