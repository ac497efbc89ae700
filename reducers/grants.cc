#include "reducers/grants.h"

#include <algorithm>

#include "reducers/strings.h"

namespace las::reducers {
namespace {

const GrantRecord* Find(const Grants& grants, std::string_view id) {
  auto it = grants.grants.find(std::string(id));
  return it == grants.grants.end() ? nullptr : &it->second;
}

// Chains are at most as long as the log has grants; this bound only guards the query
// against a state no fold can produce (a parent always exists before its child).
constexpr int kMaxChain = 1 << 20;

void IssueGrant(Grants& grants, uint64_t sequence, const fb::Envelope& event) {
  const auto* p = event.payload_as_GrantIssued();
  std::string id = Str(p->grant_id());
  if (id.empty() || grants.grants.count(id) != 0) return;  // ids are used once
  GrantRecord record;
  record.agent_id = Str(p->grantee_agent_id());
  if (record.agent_id.empty()) return;
  record.issuer = Str(event.agent_id());
  record.parent_id = Str(p->parent_grant_id());
  record.root = p->root();
  record.issued_sequence = sequence;
  if (!record.root && p->selectors() != nullptr) {
    for (const auto* s : *p->selectors()) {
      if (s == nullptr) continue;
      Selector selector{Str(s->surface()), Str(s->tool()), Str(s->definition_sha256())};
      if (!IsWellFormedSelector(selector.surface, selector.tool, selector.definition_sha256)) {
        continue;
      }
      std::string key = SelectorKey(selector.surface, selector.tool, selector.definition_sha256);
      record.selectors.emplace(std::move(key), std::move(selector));
    }
  }

  auto make_void = [&](std::string_view reason) {
    record.status = std::string(kGrantVoid);
    record.reason = std::string(reason);
  };
  if (record.parent_id.empty()) {
    if (!record.issuer.empty()) make_void("operator-only");
  } else {
    auto parent = grants.grants.find(record.parent_id);
    if (parent == grants.grants.end()) {
      make_void("unknown-parent");
    } else if (parent->second.status != kGrantLive) {
      make_void("parent-not-live");
    } else if (parent->second.agent_id != record.issuer) {
      make_void("parent-not-held");
    } else {
      bool narrower = true;
      if (record.root) {
        narrower = CoversAll(grants, record.parent_id);
      } else {
        for (const auto& [key, s] : record.selectors) {
          if (!Covers(grants, record.parent_id, s.surface, s.tool, s.definition_sha256)) {
            narrower = false;
            break;
          }
        }
      }
      if (!narrower) make_void("wider-than-parent");
      // Linked even when void: revoking the parent then finds nothing live below it.
      parent->second.children.push_back(id);
    }
  }
  grants.grants_by_agent[record.agent_id].insert(id);
  grants.grants.emplace(std::move(id), std::move(record));
}

void RevokeGrant(Grants& grants, uint64_t sequence, const fb::Envelope& event) {
  const auto* p = event.payload_as_GrantRevoked();
  const std::string id = Str(p->grant_id());
  auto it = grants.grants.find(id);
  if (it == grants.grants.end() || it->second.status != kGrantLive) return;
  const std::string_view revoker = View(event.agent_id());
  if (!revoker.empty() && revoker != it->second.issuer) return;  // not theirs to revoke
  it->second.status = std::string(kGrantRevoked);
  it->second.reason = Str(p->reason());
  it->second.revoked_by = id;
  it->second.revoked_sequence = sequence;
  std::vector<std::string> pending = it->second.children;
  while (!pending.empty()) {
    std::string child_id = std::move(pending.back());
    pending.pop_back();
    auto child = grants.grants.find(child_id);
    if (child == grants.grants.end() || child->second.status != kGrantLive) continue;
    child->second.status = std::string(kGrantRevoked);
    child->second.reason = "cascade";
    child->second.revoked_by = id;
    child->second.revoked_sequence = sequence;
    pending.insert(pending.end(), child->second.children.begin(), child->second.children.end());
  }
}

void AddRule(Grants& grants, uint64_t sequence, const fb::Envelope& event) {
  if (!View(event.agent_id()).empty()) return;  // the operator's alone
  const auto* p = event.payload_as_PermissionRuleAdded();
  std::string id = Str(p->rule_id());
  RuleRecord rule;
  rule.agent_id = Str(p->agent_id());
  rule.selector = {Str(p->surface()), Str(p->tool()), Str(p->definition_sha256())};
  rule.added_sequence = sequence;
  if (id.empty() || rule.agent_id.empty() || grants.rules.count(id) != 0 ||
      !IsWellFormedSelector(rule.selector.surface, rule.selector.tool,
                            rule.selector.definition_sha256)) {
    return;
  }
  grants.rules_by_agent[rule.agent_id].insert(id);
  grants.rules.emplace(std::move(id), std::move(rule));
}

void RemoveRule(Grants& grants, uint64_t sequence, const fb::Envelope& event) {
  if (!View(event.agent_id()).empty()) return;
  auto it = grants.rules.find(Str(event.payload_as_PermissionRuleRemoved()->rule_id()));
  if (it == grants.rules.end() || it->second.removed_sequence != 0) return;
  it->second.removed_sequence = sequence;
}

bool IsHexLower(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::string SelectorKey(std::string_view surface, std::string_view tool,
                        std::string_view definition_sha256) {
  std::string key(surface);
  key += "__";
  key += tool;
  key += '@';
  key += definition_sha256;
  return key;
}

bool IsDigestHex(std::string_view digest) {
  if (digest.size() != 64) return false;
  for (char c : digest) {
    if (!IsHexLower(c)) return false;
  }
  return true;
}

bool IsWellFormedSelector(std::string_view surface, std::string_view tool,
                          std::string_view definition_sha256) {
  return !surface.empty() && surface.find("__") == std::string_view::npos && !tool.empty() &&
         IsDigestHex(definition_sha256);
}

void Apply(Grants& grants, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::GrantIssued:
      IssueGrant(grants, sequence, event);
      break;
    case fb::EventPayload::GrantRevoked:
      RevokeGrant(grants, sequence, event);
      break;
    case fb::EventPayload::PermissionRuleAdded:
      AddRule(grants, sequence, event);
      break;
    case fb::EventPayload::PermissionRuleRemoved:
      RemoveRule(grants, sequence, event);
      break;
    default:
      break;
  }
}

bool Covers(const Grants& grants, std::string_view grant_id, std::string_view surface,
            std::string_view tool, std::string_view definition_sha256) {
  const std::string key = SelectorKey(surface, tool, definition_sha256);
  const GrantRecord* grant = Find(grants, grant_id);
  for (int depth = 0; grant != nullptr && depth < kMaxChain; ++depth) {
    if (grant->status != kGrantLive) return false;
    if (!grant->root) {
      auto it = grant->selectors.find(key);
      if (it == grant->selectors.end() || it->second.surface != surface ||
          it->second.tool != tool || it->second.definition_sha256 != definition_sha256) {
        return false;
      }
    }
    if (grant->parent_id.empty()) return true;
    grant = Find(grants, grant->parent_id);
  }
  return false;
}

bool CoversAll(const Grants& grants, std::string_view grant_id) {
  const GrantRecord* grant = Find(grants, grant_id);
  for (int depth = 0; grant != nullptr && depth < kMaxChain; ++depth) {
    if (grant->status != kGrantLive || !grant->root) return false;
    if (grant->parent_id.empty()) return true;
    grant = Find(grants, grant->parent_id);
  }
  return false;
}

std::string CoveringGrant(const Grants& grants, std::string_view agent_id,
                          std::string_view surface, std::string_view tool,
                          std::string_view definition_sha256) {
  auto ids = grants.grants_by_agent.find(agent_id);
  if (ids == grants.grants_by_agent.end()) return {};
  for (const auto& id : ids->second) {
    if (Covers(grants, id, surface, tool, definition_sha256)) return id;
  }
  return {};
}

std::string MatchingRule(const Grants& grants, std::string_view agent_id,
                         std::string_view surface, std::string_view tool,
                         std::string_view definition_sha256) {
  auto ids = grants.rules_by_agent.find(agent_id);
  if (ids == grants.rules_by_agent.end()) return {};
  for (const auto& id : ids->second) {
    const RuleRecord& rule = grants.rules.at(id);
    if (rule.removed_sequence == 0 && rule.selector.surface == surface &&
        rule.selector.tool == tool && rule.selector.definition_sha256 == definition_sha256) {
      return id;
    }
  }
  return {};
}

OtherDefinition HeldAtOtherDefinition(const Grants& grants, std::string_view agent_id,
                                      std::string_view surface, std::string_view tool,
                                      std::string_view definition_sha256) {
  const auto names_another = [&](const Selector& selector) {
    return selector.surface == surface && selector.tool == tool &&
           selector.definition_sha256 != definition_sha256;
  };
  OtherDefinition latest;  // the one issued last: ids are random, their order says nothing
  uint64_t latest_sequence = 0;
  if (auto ids = grants.grants_by_agent.find(agent_id); ids != grants.grants_by_agent.end()) {
    for (const auto& id : ids->second) {
      const GrantRecord* grant = Find(grants, id);
      if (grant == nullptr || grant->status != kGrantLive || grant->issued_sequence <= latest_sequence) {
        continue;
      }
      for (const auto& [key, selector] : grant->selectors) {
        if (!names_another(selector)) continue;
        latest = {id, selector.definition_sha256};
        latest_sequence = grant->issued_sequence;
        break;
      }
    }
  }
  if (!latest.id.empty()) return latest;
  if (auto ids = grants.rules_by_agent.find(agent_id); ids != grants.rules_by_agent.end()) {
    for (const auto& id : ids->second) {
      const RuleRecord& rule = grants.rules.at(id);
      if (rule.removed_sequence == 0 && rule.added_sequence > latest_sequence &&
          names_another(rule.selector)) {
        latest = {id, rule.selector.definition_sha256};
        latest_sequence = rule.added_sequence;
      }
    }
  }
  return latest;
}

bool HoldsRoot(const Grants& grants, std::string_view agent_id) {
  auto ids = grants.grants_by_agent.find(agent_id);
  if (ids == grants.grants_by_agent.end()) return false;
  for (const auto& id : ids->second) {
    if (CoversAll(grants, id)) return true;
  }
  return false;
}

std::string EqualLiveGrant(const Grants& grants, std::string_view agent_id,
                           std::string_view issuer, std::string_view parent_id, bool root,
                           const std::set<std::string>& keys) {
  auto ids = grants.grants_by_agent.find(agent_id);
  if (ids == grants.grants_by_agent.end()) return "";
  for (const auto& id : ids->second) {
    const GrantRecord& grant = grants.grants.at(id);
    if (grant.status != kGrantLive || grant.issuer != issuer || grant.parent_id != parent_id ||
        grant.root != root || grant.selectors.size() != keys.size()) {
      continue;
    }
    // grant.selectors is keyed by SelectorKey: the same keys, the same grant.
    if (std::all_of(keys.begin(), keys.end(),
                    [&](const std::string& key) { return grant.selectors.count(key) != 0; })) {
      return id;
    }
  }
  return "";
}

}  // namespace las::reducers
