#include "tools/grant_events.h"

#include "tools/event_fields.h"

namespace las::tools {

using event_fields::FinishAs;
using event_fields::Str;

log::EventDraft GrantIssuedEvent(const Actor& actor, std::string_view grant_id,
                                 std::string_view grantee_agent_id,
                                 std::string_view parent_grant_id, bool root,
                                 const std::vector<reducers::Selector>& selectors) {
  log::EventBuilder b;
  auto& f = b.fbb();
  std::vector<flatbuffers::Offset<fb::GrantSelector>> offsets;
  for (const auto& s : selectors) {
    offsets.push_back(fb::CreateGrantSelector(f, Str(f, s.surface), Str(f, s.tool),
                                              Str(f, s.definition_sha256)));
  }
  auto payload = fb::CreateGrantIssued(f, Str(f, grant_id), Str(f, grantee_agent_id),
                                       Str(f, parent_grant_id), root, f.CreateVector(offsets));
  return FinishAs(b, payload, actor);
}

log::EventDraft GrantRevokedEvent(const Actor& actor, std::string_view grant_id,
                                  std::string_view reason) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateGrantRevoked(f, Str(f, grant_id), Str(f, reason));
  return FinishAs(b, payload, actor);
}

log::EventDraft PermissionRuleAddedEvent(std::string_view rule_id, std::string_view agent_id,
                                         const reducers::Selector& selector) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreatePermissionRuleAdded(f, Str(f, rule_id), Str(f, agent_id),
                                               Str(f, selector.surface), Str(f, selector.tool),
                                               Str(f, selector.definition_sha256));
  return b.Finish(payload, "", "");
}

log::EventDraft PermissionRuleRemovedEvent(std::string_view rule_id) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreatePermissionRuleRemoved(f, Str(f, rule_id));
  return b.Finish(payload, "", "");
}

}  // namespace las::tools
