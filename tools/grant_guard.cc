#include "tools/grant_guard.h"

#include "projections/grants_projection.h"
#include "tools/live_projections.h"
#include "tools/source_ids.h"

namespace las::tools {

std::optional<Refusal> GrantGuard::BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                              std::string_view /*arguments_json*/) {
  const bool admin = tool.builtin && IsAdminTool(tool.qualified_name);
  if (tool.builtin && !admin) return std::nullopt;
  if (policy_.ImplicitRoot(session.agent_id, session.implicit_root_waived)) return std::nullopt;
  if (!live_.CatchUp().ok()) return Refusal{"grants-unavailable", -32602, kNotPermitted};
  const auto* grants = live_.Get<projections::GrantsProjection>("grants");
  if (grants == nullptr) return Refusal{"grants-unavailable", -32602, kNotPermitted};
  if (admin) {
    if (grants->HoldsRoot(session.agent_id)) return std::nullopt;
    return Refusal{"no-root-grant", -32602, kNotPermitted};
  }
  if (grants->Allows(session.agent_id, tool.surface, tool.tool, tool.definition_sha256)) {
    return std::nullopt;
  }
  return Refusal{"no-grant", -32602, kNotPermitted};
}

}  // namespace las::tools
