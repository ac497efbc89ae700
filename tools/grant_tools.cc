#include "tools/grant_tools.h"

#include <nlohmann/json.hpp>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "base/json_text_dump.h"
#include "log/event_log.h"
#include "projections/grants_projection.h"
#include "tools/grant_admin.h"
#include "tools/grant_events.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "trust/manifest.h"

namespace las::tools {
namespace {

using nlohmann::json;

constexpr std::string_view kSelectorSchema =
    R"({"type":"object","properties":{"surface":{"type":"string","minLength":1,"maxLength":256},)"
    R"("tool":{"type":"string","minLength":1,"maxLength":256},)"
    R"("definition_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"}},)"
    R"("required":["surface","tool","definition_sha256"],"additionalProperties":false})";

json SelectorJson(const reducers::Selector& s) {
  return {{"surface", s.surface}, {"tool", s.tool}, {"definition_sha256", s.definition_sha256}};
}

json SelectorsJson(const std::vector<reducers::Selector>& selectors) {
  json out = json::array();
  for (const reducers::Selector& s : selectors) out.push_back(SelectorJson(s));
  return out;
}

// The selectors that cover nothing served, as `las grants --json` names them: their tool is
// recorded at another definition, or not at all (probe FW2).
void AddUnservedSelectors(const projections::ProjectionSet& set,
                          const std::vector<reducers::Selector>& selectors, json& out) {
  const UnservedSelectors unserved = UnservedAmong(set, selectors);
  out["definitions_changed"] = SelectorsJson(unserved.definitions_changed);
  out["not_in_catalog"] = SelectorsJson(unserved.not_in_catalog);
}

json GrantJson(const projections::ProjectionSet& set, const std::string& id,
               const reducers::GrantRecord& g) {
  const std::vector<reducers::Selector> listed = SelectorsOf(g);
  json out = {{"grant_id", id},         {"agent_id", g.agent_id}, {"issuer", g.issuer},
              {"parent_grant_id", g.parent_id}, {"root", g.root}, {"selectors", SelectorsJson(listed)},
              {"status", g.status}};
  AddUnservedSelectors(set, listed, out);
  return out;
}

const reducers::Grants* CurrentGrants(LiveProjections& live) {
  if (!live.CatchUp().ok()) return nullptr;
  const auto* projection = live.Get<projections::GrantsProjection>("grants");
  return projection != nullptr ? &projection->grants() : nullptr;
}

// Appends `draft` (synced) and, once it is durable and folded, answers what the log made of
// it: `decide` reads the grants as folded through the event at `sequence`. The checks made
// before appending see only folded events; another grant event may have been appended
// meanwhile (a revocation of the parent, a delegation from the grant being revoked), and the
// reducer, which folds in log order, is the authority on what took effect.
void AppendThenAnswer(
    const LasToolContext& context, log::EventDraft draft,
    std::function<ToolCallReply(const reducers::Grants& grants, uint64_t sequence)> decide,
    std::function<void(ToolCallReply)> done) {
  context.appender.Append(
      {std::move(draft)}, log::Durability::kSynced,
      [&live = context.live, decide = std::move(decide),
       done = std::move(done)](Result<log::AppendedRange> appended) mutable {
        const reducers::Grants* grants = appended.ok() ? CurrentGrants(live) : nullptr;
        done(grants != nullptr ? decide(*grants, appended->first)
                               : ToolCallReply::Error(-32603, "Tool call failed"));
      });
  // Written and folded now: a call decided later in the same turn is checked against the
  // grants this event leaves, and logged after it (as las__disable_source: probe FC1).
  context.appender.WriteQueued();
}

// The refusal for a delegation the reducer voided.
std::string_view VoidedReason(const reducers::GrantRecord& grant) {
  return grant.reason == "wider-than-parent" ? "wider-than-held" : "not-held";
}

void ListGrants(const LasToolContext& context, const GrantPolicy& policy,
                const SessionInfo& session, std::function<void(ToolCallReply)> done) {
  const reducers::Grants* grants = CurrentGrants(context.live);
  if (grants == nullptr) {
    done(ToolCallReply::Error(-32603, "Tool call failed"));
    return;
  }
  json held = json::array();
  json issued = json::array();
  for (const auto& [id, g] : grants->grants) {
    if (g.agent_id == session.agent_id && g.status == reducers::kGrantLive) {
      held.push_back(GrantJson(context.live.set(), id, g));
    }
    if (g.issuer == session.agent_id) issued.push_back(GrantJson(context.live.set(), id, g));
  }
  json rules = json::array();
  for (const auto& [id, r] : grants->rules) {
    if (r.agent_id != session.agent_id || r.removed_sequence != 0) continue;
    json rule = SelectorJson(r.selector);
    rule["rule_id"] = id;
    rule["standing"] = StandingName(StandingOf(context.live.set(), r.selector));
    rules.push_back(std::move(rule));
  }
  json out = {{"agent_id", session.agent_id},
              {"implicit_root", policy.ImplicitRoot(session.agent_id, session.implicit_root_waived)},
              {"grants", held},
              {"issued", issued},
              {"rules", rules}};
  done(ToolCallReply::Result(JsonResult(DumpJson(out))));
}

// Delegations appended and not yet answered, by what they give (EqualDelegationKey): an
// equal one sent meanwhile finds no live grant yet, and would be issued too (probe Y2).
// Loop thread only.
using PendingDelegations = std::set<std::string>;

std::string EqualDelegationKey(std::string_view to_agent, std::string_view issuer,
                               std::string_view parent, bool all,
                               const std::set<std::string>& selector_keys) {
  std::string key = DumpJson(json::array({to_agent, issuer, parent, all}));
  for (const std::string& selector : selector_keys) key += "\n" + selector;
  return key;
}

void Delegate(const LasToolContext& context, const std::function<std::string()>& new_id,
              const std::shared_ptr<PendingDelegations>& pending, const SessionInfo& session,
              const std::string& arguments, std::function<void(ToolCallReply)> done) {
  const json args = json::parse(arguments, nullptr, false);
  const reducers::Grants* grants = CurrentGrants(context.live);
  if (!args.is_object() || grants == nullptr) {
    done(ToolCallReply::Error(-32603, "Tool call failed"));
    return;
  }
  const std::string to_agent = args.value("to_agent", "");
  const std::string from = args.value("from_grant", "");
  const bool all = args.value("all", false);
  std::vector<reducers::Selector> selectors;
  if (auto it = args.find("selectors"); it != args.end() && it->is_array()) {
    for (const auto& s : *it) {
      selectors.push_back({s.value("surface", ""), s.value("tool", ""),
                           s.value("definition_sha256", "")});
    }
  }
  if (!IsValidAgentId(to_agent)) return done(Refused("invalid-agent"));
  if (to_agent == session.agent_id) return done(Refused("self-delegation"));
  if (all == !selectors.empty()) return done(Refused("all-or-selectors"));
  auto parent = grants->grants.find(from);
  if (parent == grants->grants.end() || parent->second.agent_id != session.agent_id ||
      parent->second.status != reducers::kGrantLive) {
    return done(Refused("not-held"));
  }
  if (all && !reducers::CoversAll(*grants, from)) return done(Refused("wider-than-held"));
  for (const auto& s : selectors) {
    // Names as `las grant` checks them: a name no release can give (`Not A Surface!`; a
    // surface `a_` whose key `a____b` another selector shares) would be a grant that never
    // matches, listed as if it meant something (probe BX2); and Las's own tools (surface
    // `las`, which IsValidSurfaceName refuses) are never granted by name.
    if (!reducers::IsWellFormedSelector(s.surface, s.tool, s.definition_sha256) ||
        !trust::IsValidSurfaceName(s.surface) || !trust::IsValidToolName(s.tool)) {
      return done(Refused("invalid-selector"));
    }
    if (!reducers::Covers(*grants, from, s.surface, s.tool, s.definition_sha256)) {
      return done(Refused("wider-than-held"));
    }
  }
  // The same grant again from the same parent would give nothing more, and revoking one
  // of the two would not stop the calls (as for the operator's `las grant`).
  std::set<std::string> keys;
  for (const auto& s : selectors) keys.insert(reducers::SelectorKey(s.surface, s.tool, s.definition_sha256));
  const std::string equal_key = EqualDelegationKey(to_agent, session.agent_id, from, all, keys);
  if (!reducers::EqualLiveGrant(*grants, to_agent, session.agent_id, from, all, keys).empty() ||
      pending->count(equal_key) != 0) {
    return done(Refused("already-delegated"));
  }
  pending->insert(equal_key);
  done = [pending, equal_key, done = std::move(done)](ToolCallReply reply) {
    pending->erase(equal_key);
    done(std::move(reply));
  };
  const std::string grant_id = new_id();
  json reply = {{"grant_id", grant_id}, {"agent_id", to_agent}, {"parent_grant_id", from},
                {"root", all}};
  // Delegating a selector the served catalog does not match narrows as asked, and gives
  // nothing callable: said, so the issuer can delegate the current definition (probe FW2).
  AddUnservedSelectors(context.live.set(), selectors, reply);
  AppendThenAnswer(
      context,
      GrantIssuedEvent({session.agent_id, session.session_id}, grant_id, to_agent, from, all,
                       selectors),
      [grant_id, reply = DumpJson(reply)](const reducers::Grants& folded, uint64_t) {
        auto issued = folded.grants.find(grant_id);
        if (issued == folded.grants.end()) return ToolCallReply::Error(-32603, "Tool call failed");
        if (issued->second.status == reducers::kGrantVoid) {
          return Refused(VoidedReason(issued->second));
        }
        return ToolCallReply::Result(JsonResult(reply));
      },
      std::move(done));
}

void Revoke(const LasToolContext& context, const SessionInfo& session,
            const std::string& arguments, std::function<void(ToolCallReply)> done) {
  const json args = json::parse(arguments, nullptr, false);
  const reducers::Grants* grants = CurrentGrants(context.live);
  if (!args.is_object() || grants == nullptr) {
    done(ToolCallReply::Error(-32603, "Tool call failed"));
    return;
  }
  const std::string id = args.value("grant_id", "");
  auto grant = grants->grants.find(id);
  // Not found and not issued by the caller look the same: no probing of others' grants.
  if (grant == grants->grants.end() || grant->second.issuer != session.agent_id) {
    return done(Refused("not-issued-by-you"));
  }
  if (grant->second.status != reducers::kGrantLive) return done(Refused("not-live"));
  AppendThenAnswer(
      context,
      GrantRevokedEvent({session.agent_id, session.session_id}, id, "revoked-by-issuer"),
      [id](const reducers::Grants& folded, uint64_t sequence) {
        // What this event ended: the grant and every grant delegated from it that was live.
        auto target = folded.grants.find(id);
        if (target == folded.grants.end() || target->second.revoked_sequence != sequence) {
          return Refused("not-live");  // another revocation ended it first
        }
        json revoked = json::array({id});
        for (const auto& [grant_id, g] : folded.grants) {
          if (g.revoked_sequence == sequence && grant_id != id) revoked.push_back(grant_id);
        }
        return ToolCallReply::Result(
            JsonResult(DumpJson(json{{"grant_id", id}, {"revoked", revoked}})));
      },
      std::move(done));
}

}  // namespace

void AddGrantTools(BuiltinTools& tools, const LasToolContext& context, GrantPolicy policy,
                   std::function<std::string()> new_grant_id) {
  tools.Add("grants",
            "What this agent may call: its live grants (exact surface, tool and definition "
            "digest, or root), its always-allow rules, whether it holds the default agent's "
            "implicit root, and the grants it delegated.",
            R"({"type":"object","properties":{},"additionalProperties":false})",
            [context, policy](const SessionInfo& session, const std::string&,
                              std::function<void(ToolCallReply)> done) {
              ListGrants(context, policy, session, std::move(done));
            });
  tools.Add("grant_delegate",
            "Delegate part of a grant you hold to another agent: `all` (only from a grant "
            "covering every tool) or exact selectors that grant covers. Never wider than "
            "what you hold; revoking your grant revokes the delegated one.",
            std::string(R"({"type":"object","properties":{)"
                        R"("to_agent":{"type":"string","minLength":1,"maxLength":256},)"
                        R"("from_grant":{"type":"string","minLength":1,"maxLength":256},)"
                        R"("all":{"type":"boolean"},)"
                        R"("selectors":{"type":"array","minItems":1,"maxItems":256,"items":)") +
                std::string(kSelectorSchema) +
                R"(}},"required":["to_agent","from_grant"],"additionalProperties":false})",
            [context, new_grant_id, pending = std::make_shared<PendingDelegations>()](
                const SessionInfo& session, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
              Delegate(context, new_grant_id, pending, session, arguments, std::move(done));
            });
  tools.Add("grant_revoke",
            "Revoke a grant you delegated; every grant delegated from it is revoked with it.",
            R"({"type":"object","properties":{"grant_id":{"type":"string","minLength":1,)"
            R"("maxLength":256}},"required":["grant_id"],"additionalProperties":false})",
            [context](const SessionInfo& session, const std::string& arguments,
                      std::function<void(ToolCallReply)> done) {
              Revoke(context, session, arguments, std::move(done));
            });
}

}  // namespace las::tools
