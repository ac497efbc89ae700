// ToolsListCache: the `tools/list` answer Gateway::ListTools serves — the catalog's tools
// that every call guard's Listed() accepts — built from the catalog's precomputed entries
// and kept per agent.
//
// An answer is reused only while the catalog's version(), the session's agent_id and every
// guard's ListingGeneration() (tools/call_guard.h) are those it was built with; any change
// (a source enabled or disabled folds a new event, so SourceGuard's generation moves)
// rebuilds it on the next request. If any guard returns nullopt (no promise), nothing is
// cached and Listed() is asked per tool on every request. Agents whose answers are equal
// share one copy (most agents see the same listing: 64 copies of a 2 MB listing held 140 MB,
// probe P2). At most kMaxAgents agents and kMaxBytes of distinct answers are kept; past
// either the cache is emptied and refilled.
//
// Threading: not thread-safe; the gateway's loop thread only (as the guards).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/call_guard.h"
#include "tools/catalog.h"
#include "tools/mcp_endpoint.h"

namespace las::tools {

class ToolsListCache {
 public:
  static constexpr size_t kMaxAgents = 64;
  static constexpr size_t kMaxBytes = 32 << 20;

  // The tools/list result object (JSON text) for `session`. The reference is valid until
  // the next call.
  const std::string& Get(const Catalog& catalog, const std::vector<CallGuard*>& guards,
                         const SessionInfo& session);
  // How many answers were built rather than reused (for tests and benchmarks).
  uint64_t builds() const { return builds_; }

 private:
  struct Entry {
    uint64_t catalog_version = 0;
    std::vector<uint64_t> generations;
    std::shared_ptr<const std::string> json;
  };

  // `json`, or an equal answer another agent holds already.
  std::shared_ptr<const std::string> Shared(std::string json) const;
  size_t DistinctBytes() const;

  std::map<std::string, Entry, std::less<>> by_agent_;
  std::string uncached_;
  uint64_t builds_ = 0;
};

}  // namespace las::tools
