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
  // Held, but for the tool as it was: the operator needs to know why a granted tool is
  // refused (probe FT2: "no-grant" with no detail, the grant still listed live).
  const reducers::OtherDefinition held = reducers::HeldAtOtherDefinition(
      grants->grants(), session.agent_id, tool.surface, tool.tool, tool.definition_sha256);
  if (held.id.empty()) return Refusal{"no-grant", -32602, kNotPermitted};
  return Refusal{"no-grant", -32602, kNotPermitted,
                 held.id + " names this tool at definition " + held.definition_sha256 +
                     ", not the one served (" + tool.definition_sha256 +
                     "): the tool changed since; grant it again to allow it"};
}

}  // namespace las::tools
