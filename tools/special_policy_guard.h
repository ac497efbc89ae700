// The call-time half of the special surface policies (docs/POLICIES.md), as a CallGuard:
//
//   BeforeCall  Skarbiec: pinned tool names, then the argument rules (taxonomy, TTL, use
//               count, delegation depth; trust/skarbiec_policy.h). Finance: the tool-name
//               rule. Tama/Warsztat: the local allowlist. (Admission already kept every
//               such tool out of the catalog; this is defense in depth.)
//   OnResult    Skarbiec: the exact result envelopes; a refused result reaches the client
//               only as a generic error, and the gateway records no part of it; an
//               accepted one is relayed and recorded as Las writes it, not as the child did.
//               A Skarbiec child's progress notifications are not relayed.
//
// Refusals carry the trust reason names (skarbiec-ttl, policy-tool-not-allowed, ...) and
// static client text. The policies are the federation's (loaded once, at Start); until a
// federation is linked, Skarbiec capability calls are refused as policy-unavailable.
//
// Threading: the gateway's loop thread only.
#pragma once

#include "tools/call_guard.h"
#include "tools/registry.h"

namespace las::tools {

struct ServerLinks;

class SpecialPolicyGuard final : public CallGuard {
 public:
  // `registry` says which policy each surface has; `links` gives the federation at call
  // time. Both are borrowed and must outlive the guard.
  SpecialPolicyGuard(const Registry& registry, const ServerLinks& links)
      : registry_(registry), links_(links) {}

  std::optional<Refusal> BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                    std::string_view arguments_json) override;
  std::optional<Refusal> OnResult(const SessionInfo& session, const CatalogTool& tool,
                                  std::string& result_json) override;
  // Not for Skarbiec: a child's progress numbers are no exact envelope (probe EJ2).
  bool RelaysProgress(const CatalogTool& tool) const override;
  // Lists every tool (the default Listed()), so the listing never changes.
  std::optional<uint64_t> ListingGeneration(const SessionInfo&) const override { return 0; }

 private:
  SurfacePolicy PolicyOf(const CatalogTool& tool) const;

  const Registry& registry_;
  const ServerLinks& links_;
};

}  // namespace las::tools
