#include "tools/source_guard.h"

#include "projections/sources_projection.h"
#include "tools/builtin_tools.h"
#include "tools/source_ids.h"

namespace las::tools {

bool SourceEnabled(const LiveProjections& live, std::string_view id) {
  const auto* sources = live.Get<projections::SourcesProjection>("sources");
  return sources == nullptr || sources->toggles().IsEnabled(id);
}

bool ToolSourceEnabled(const LiveProjections& live, const CatalogTool& tool) {
  // A child's tool belongs to its surface (no copy of the id on this per-tool path).
  return tool.builtin ? SourceEnabled(live, SourceIdOf(tool)) : SourceEnabled(live, tool.surface);
}

std::optional<Refusal> SourceGuard::BeforeCall(const SessionInfo&, const CatalogTool& tool,
                                               std::string_view) {
  if (ToolSourceEnabled(live_, tool)) return std::nullopt;
  return Refusal{std::string(kReasonSourceDisabled), -32602, "Tool unavailable: source disabled"};
}

bool SourceGuard::Listed(const SessionInfo&, const CatalogTool& tool) const {
  if (lazy_ && !IsDiscoveryTool(tool.qualified_name) && tool.qualified_name != kOnboardingTool) {
    return false;
  }
  return ToolSourceEnabled(live_, tool);
}

std::optional<uint64_t> SourceGuard::ListingGeneration(const SessionInfo&) const {
  return live_.sequence();
}

}  // namespace las::tools
