// Event drafts for grants and permission rules (log/events.fbs: GrantIssued, GrantRevoked,
// PermissionRuleAdded, PermissionRuleRemoved). The actor is who did it: an agent delegating
// or revoking through `las__grant_*`, or the operator (empty agent and session, `las grant`).
// What the grants reducer accepts from whom is in reducers/grants.h.
#pragma once

#include <string_view>
#include <vector>

#include "log/event.h"
#include "reducers/grants.h"
#include "tools/decision_events.h"

namespace las::tools {

// `parent_grant_id` empty: an operator grant. `root`: every tool (selectors ignored).
log::EventDraft GrantIssuedEvent(const Actor& actor, std::string_view grant_id,
                                 std::string_view grantee_agent_id,
                                 std::string_view parent_grant_id, bool root,
                                 const std::vector<reducers::Selector>& selectors);
log::EventDraft GrantRevokedEvent(const Actor& actor, std::string_view grant_id,
                                  std::string_view reason);
log::EventDraft PermissionRuleAddedEvent(std::string_view rule_id, std::string_view agent_id,
                                         const reducers::Selector& selector);
log::EventDraft PermissionRuleRemovedEvent(std::string_view rule_id);

}  // namespace las::tools
