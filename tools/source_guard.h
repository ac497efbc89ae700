// SourceGuard: the first call guard. A tool whose source (tools/source_ids.h) is disabled
// is refused with reason "source-disabled" (recorded as ToolCallDenied) and left out of
// tools/list; with `las serve --lazy`, tools/list keeps only the discovery tools
// (las__search, las__describe, las__list_tools, las__call) and las__onboarding (always
// listed). Lazy mode changes listing only: every call still passes every guard.
// ListingGeneration is the live projections' sequence: a folded SourceEnabled/Disabled
// changes it, so a cached tools/list is rebuilt (tools/tools_list_cache.h).
//
// Reads the "sources" projection of the server's LiveProjections (kept current by
// whoever appends SourceEnabled/SourceDisabled: the las.admin tools catch up after their
// append). Threading: the gateway's loop only; `live` must outlive the guard.
#pragma once

#include <string_view>

#include "tools/call_guard.h"
#include "tools/live_projections.h"

namespace las::tools {

inline constexpr std::string_view kReasonSourceDisabled = "source-disabled";

// True unless the latest SourceEnabled/SourceDisabled for `id` disabled it.
bool SourceEnabled(const LiveProjections& live, std::string_view id);
// SourceEnabled for the source that owns `tool` (tools/source_ids.h SourceIdOf).
bool ToolSourceEnabled(const LiveProjections& live, const CatalogTool& tool);

class SourceGuard final : public CallGuard {
 public:
  SourceGuard(const LiveProjections& live, bool lazy) : live_(live), lazy_(lazy) {}

  std::optional<Refusal> BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                    std::string_view arguments_json) override;
  bool Listed(const SessionInfo& session, const CatalogTool& tool) const override;
  std::optional<uint64_t> ListingGeneration(const SessionInfo& session) const override;

 private:
  const LiveProjections& live_;
  bool lazy_;
};

}  // namespace las::tools
