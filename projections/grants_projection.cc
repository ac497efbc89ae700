#include "projections/grants_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

std::optional<Allowance> GrantsProjection::Allows(std::string_view agent_id,
                                                  std::string_view surface,
                                                  std::string_view tool,
                                                  std::string_view definition_sha256) const {
  std::string id = reducers::CoveringGrant(grants_, agent_id, surface, tool, definition_sha256);
  if (!id.empty()) return Allowance{Allowance::Kind::kGrant, std::move(id)};
  id = reducers::MatchingRule(grants_, agent_id, surface, tool, definition_sha256);
  if (!id.empty()) return Allowance{Allowance::Kind::kRule, std::move(id)};
  return std::nullopt;
}

namespace {

void WriteSelector(CanonicalWriter& out, const reducers::Selector& s) {
  out.BeginObject();
  out.Key("definition_sha256");
  out.String(s.definition_sha256);
  out.Key("surface");
  out.String(s.surface);
  out.Key("tool");
  out.String(s.tool);
  out.EndObject();
}

}  // namespace

void GrantsProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("grants");
  out.BeginObject();
  for (const auto& [id, g] : grants_.grants) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("agent_id");
    out.String(g.agent_id);
    out.Key("issued_sequence");
    out.Uint(g.issued_sequence);
    out.Key("issuer");
    out.String(g.issuer);
    out.Key("parent_id");
    out.String(g.parent_id);
    out.Key("reason");
    out.String(g.reason);
    out.Key("revoked_by");
    out.String(g.revoked_by);
    out.Key("revoked_sequence");
    out.Uint(g.revoked_sequence);
    out.Key("root");
    out.Bool(g.root);
    out.Key("selectors");
    out.BeginObject();
    for (const auto& [key, selector] : g.selectors) {
      out.Key(key);
      WriteSelector(out, selector);
    }
    out.EndObject();
    out.Key("status");
    out.String(g.status);
    out.EndObject();
  }
  out.EndObject();
  out.Key("rules");
  out.BeginObject();
  for (const auto& [id, r] : grants_.rules) {
    out.Key(id);
    out.BeginObject();
    out.Key("added_sequence");
    out.Uint(r.added_sequence);
    out.Key("agent_id");
    out.String(r.agent_id);
    out.Key("removed_sequence");
    out.Uint(r.removed_sequence);
    out.Key("selector");
    WriteSelector(out, r.selector);
    out.EndObject();
  }
  out.EndObject();
  out.EndObject();
}

// Snapshot layout: grant count, then per grant (in id order) id, agent, issuer, parent,
// root, selector count and each selector (surface, tool, digest), issued sequence, status,
// reason, revoked_by, revoked sequence, child count and child ids; then rule count and per
// rule id, agent, surface, tool, digest, added and removed sequence. Indexes are rebuilt.
bool GrantsProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(grants_.grants.size());
  for (const auto& [id, g] : grants_.grants) {
    w.String(id);
    w.String(g.agent_id);
    w.String(g.issuer);
    w.String(g.parent_id);
    w.Bool(g.root);
    w.Uint(g.selectors.size());
    for (const auto& [key, s] : g.selectors) {
      w.String(s.surface);
      w.String(s.tool);
      w.String(s.definition_sha256);
    }
    w.Uint(g.issued_sequence);
    w.String(g.status);
    w.String(g.reason);
    w.String(g.revoked_by);
    w.Uint(g.revoked_sequence);
    w.Uint(g.children.size());
    for (const auto& child : g.children) w.String(child);
  }
  w.Uint(grants_.rules.size());
  for (const auto& [id, r] : grants_.rules) {
    w.String(id);
    w.String(r.agent_id);
    w.String(r.selector.surface);
    w.String(r.selector.tool);
    w.String(r.selector.definition_sha256);
    w.Uint(r.added_sequence);
    w.Uint(r.removed_sequence);
  }
  return true;
}

bool GrantsProjection::Restore(std::string_view state) {
  StateReader r(state);
  reducers::Grants loaded;
  uint64_t count = 0;
  if (!r.Uint(count) || count > state.size()) return false;
  for (uint64_t i = 0; i < count && r.ok(); ++i) {
    std::string id;
    reducers::GrantRecord g;
    uint64_t selectors = 0;
    r.String(id);
    r.String(g.agent_id);
    r.String(g.issuer);
    r.String(g.parent_id);
    r.Bool(g.root);
    if (!r.Uint(selectors) || selectors > state.size()) return false;
    for (uint64_t j = 0; j < selectors && r.ok(); ++j) {
      reducers::Selector s;
      r.String(s.surface);
      r.String(s.tool);
      r.String(s.definition_sha256);
      g.selectors.emplace(reducers::SelectorKey(s.surface, s.tool, s.definition_sha256),
                          std::move(s));
    }
    uint64_t children = 0;
    r.Uint(g.issued_sequence);
    r.String(g.status);
    r.String(g.reason);
    r.String(g.revoked_by);
    r.Uint(g.revoked_sequence);
    if (!r.Uint(children) || children > state.size()) return false;
    for (uint64_t j = 0; j < children && r.ok(); ++j) {
      std::string child;
      r.String(child);
      g.children.push_back(std::move(child));
    }
    loaded.grants_by_agent[g.agent_id].insert(id);
    loaded.grants.emplace(std::move(id), std::move(g));
  }
  if (!r.Uint(count) || count > state.size()) return false;
  for (uint64_t i = 0; i < count && r.ok(); ++i) {
    std::string id;
    reducers::RuleRecord rule;
    r.String(id);
    r.String(rule.agent_id);
    r.String(rule.selector.surface);
    r.String(rule.selector.tool);
    r.String(rule.selector.definition_sha256);
    r.Uint(rule.added_sequence);
    r.Uint(rule.removed_sequence);
    loaded.rules_by_agent[rule.agent_id].insert(id);
    loaded.rules.emplace(std::move(id), std::move(rule));
  }
  if (!r.done()) return false;
  grants_ = std::move(loaded);
  return true;
}

}  // namespace las::projections
