#include "tools/tools_list_cache.h"

#include <set>

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
    return *it->second.json;
  }
  ++builds_;
  std::shared_ptr<const std::string> json = Shared(catalog.ToolsListJson(listed));
  if (it == by_agent_.end()) {
    if (by_agent_.size() >= kMaxAgents || DistinctBytes() + json->size() > kMaxBytes) {
      by_agent_.clear();
    }
    it = by_agent_.emplace(session.agent_id, Entry{}).first;
  }
  it->second.catalog_version = catalog.version();
  it->second.generations = std::move(generations);
  it->second.json = std::move(json);
  return *it->second.json;
}

std::shared_ptr<const std::string> ToolsListCache::Shared(std::string json) const {
  for (const auto& [agent, entry] : by_agent_) {
    if (entry.json && *entry.json == json) return entry.json;
  }
  return std::make_shared<const std::string>(std::move(json));
}

size_t ToolsListCache::DistinctBytes() const {
  std::set<const std::string*> seen;
  size_t bytes = 0;
  for (const auto& [agent, entry] : by_agent_) {
    if (entry.json && seen.insert(entry.json.get()).second) bytes += entry.json->size();
  }
  return bytes;
}

}  // namespace las::tools
