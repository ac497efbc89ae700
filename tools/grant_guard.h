// GrantGuard: the last call guard — does the session's agent hold the exact tool it calls?
//
// A child's tool is allowed when the agent holds the default agent's implicit root
// (tools/grant_policy.h), or a live grant covering (surface, raw tool name, definition
// digest) — root, or naming exactly that definition, through its whole delegation chain —
// or an "always allow" rule for exactly that triple (reducers/grants.h). Otherwise the
// call is refused at once with reason "no-grant": nothing ever waits for a human. When a
// live grant or rule of the agent names the tool at another definition (it changed since
// it was granted), the refusal's detail says which and both digests.
//
// Las's own tools: every las__ tool is per-agent and allowed to every agent, except the
// las.admin tools (tools/source_ids.h IsAdminTool; they exist only under --admin), which
// need a root grant (implicit or issued): refused with "no-root-grant" otherwise.
//
// The state is read from LiveProjections after CatchUp(), so a grant or revocation the
// server itself appended counts from the next call. A CatchUp() error refuses the call
// ("grants-unavailable"): fail closed. The default agent's implicit root needs no read.
//
// tools/list is not filtered by grants: an agent sees the catalog and is refused at call
// time. Refusals are generic to the client (-32602 "Tool call not permitted"). Threading: the
// gateway's loop thread only (as LiveProjections).
#pragma once

#include <map>
#include <set>
#include <string>

#include "tools/call_guard.h"
#include "tools/grant_policy.h"

namespace las::tools {

class LiveProjections;

inline constexpr std::string_view kNotPermitted = "Tool call not permitted";

class GrantGuard final : public CallGuard {
 public:
  // `live` must outlive the guard.
  GrantGuard(LiveProjections& live, GrantPolicy policy) : live_(live), policy_(std::move(policy)) {}

  std::optional<Refusal> BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                    std::string_view arguments_json) override;
  // An agent not permitted a tool hears only that, whatever else refused the call.
  bool ConcealsEarlierRefusals() const override { return true; }
  // Grants decide calls, not the listing: tools/list stays cacheable.
  std::optional<uint64_t> ListingGeneration(const SessionInfo&) const override { return 0; }

 private:
  // Once per agent: a note on stderr when the default agent, whose implicit root allows
  // everything, holds live grants too — the operator who issued them meant to narrow it
  // (probe FT4: LAS_AGENT_ID=alice gave alice every tool whatever `las grants` listed).
  // Until it does, asked once per session of the agent (one catch-up of the live
  // projections).
  void NoteRootOverGrants(const SessionInfo& session);

  LiveProjections& live_;
  GrantPolicy policy_;
  std::set<std::string, std::less<>> noted_root_agents_;
  std::map<std::string, std::string, std::less<>> root_checked_session_;  // agent -> session
};

}  // namespace las::tools
