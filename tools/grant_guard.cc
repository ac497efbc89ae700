#include "tools/grant_guard.h"

#include <algorithm>

#include "base/note.h"
#include "base/printable_text.h"
#include "projections/grants_projection.h"
#include "tools/live_projections.h"
#include "tools/source_ids.h"

namespace las::tools {

void GrantGuard::NoteRootOverGrants(const SessionInfo& session) {
  // Asked once per session of the agent (not at each call: the default agent's calls need
  // no read of the grants), until the agent holds a live grant, which may be issued while
  // the server runs.
  std::string& checked = root_checked_session_[session.agent_id];
  if (checked == session.session_id) return;
  checked = session.session_id;
  const std::string& agent_id = session.agent_id;
  if (!live_.CatchUp().ok()) return;
  const auto* grants = live_.Get<projections::GrantsProjection>("grants");
  if (grants == nullptr) return;
  const reducers::Grants& all = grants->grants();
  const auto ids = all.grants_by_agent.find(agent_id);
  if (ids == all.grants_by_agent.end() ||
      std::none_of(ids->second.begin(), ids->second.end(), [&](const std::string& id) {
        const auto grant = all.grants.find(id);
        return grant != all.grants.end() && grant->second.status == reducers::kGrantLive;
      })) {
    return;
  }
  noted_root_agents_.insert(agent_id);
  root_checked_session_.erase(agent_id);
  Note("agent %s is the default agent (LAS_AGENT_ID, else \"default\") and holds the implicit "
       "root grant: the grants issued to it do not narrow what it may call "
       "(LAS_DEFAULT_AGENT_GRANT=none withdraws the root; docs/GRANTS.md)\n",
       EscapeForTerminal(agent_id).c_str());
}

std::optional<Refusal> GrantGuard::BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                              std::string_view /*arguments_json*/) {
  const bool admin = tool.builtin && IsAdminTool(tool.qualified_name);
  if (tool.builtin && !admin) return std::nullopt;
  if (policy_.ImplicitRoot(session.agent_id, session.implicit_root_waived)) {
    if (!noted_root_agents_.contains(session.agent_id)) NoteRootOverGrants(session);
    return std::nullopt;
  }
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
