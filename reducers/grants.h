// The grants reducer: who may call what. Grants by id with their parent links, revocation
// cascading to every grant delegated from a revoked one, and "always allow" rules per agent.
// Pure: same events, same state. docs/GRANTS.md is the user's page.
//
// What the fold enforces (so a log replays to the same decisions whoever wrote it):
//   - GrantIssued with an empty parent is an operator grant: only the operator (an event
//     with an empty agent_id) may issue one. A delegated grant names a parent grant that is
//     live, held by the issuer (the event's agent_id is the parent's grantee), and at least
//     as wide as the new grant (root only from root; otherwise every selector covered).
//     A grant failing any of these is recorded as "void" with a reason and never covers
//     anything. A second GrantIssued with an id already used is ignored.
//   - A selector is exact: surface, the child's raw tool name and the definition digest
//     (64 lowercase hex). Ill-formed selectors (empty parts, a surface with "__", a digest
//     that is not 64 lowercase hex) are dropped: they could never match.
//   - GrantRevoked by the operator, or by the agent that issued the grant, marks it and
//     every live grant delegated from it (transitively) "revoked"; others are ignored.
//   - PermissionRuleAdded only from the operator, with a well-formed selector and an unused
//     rule id; PermissionRuleRemoved (operator only) marks the rule removed.
// Coverage is checked through the whole chain at query time too: a delegated grant covers a
// selector only if every ancestor still covers it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "log/envelope.h"

namespace las::reducers {

struct Selector {
  std::string surface;
  std::string tool;  // the child's raw tool name
  std::string definition_sha256;
};

// "<surface>__<tool>@<digest>": unique for well-formed selectors (the surface has no "__",
// the digest no "@").
std::string SelectorKey(std::string_view surface, std::string_view tool,
                        std::string_view definition_sha256);
bool IsDigestHex(std::string_view digest);  // 64 lowercase hex characters
bool IsWellFormedSelector(std::string_view surface, std::string_view tool,
                          std::string_view definition_sha256);

inline constexpr std::string_view kGrantLive = "live";
inline constexpr std::string_view kGrantRevoked = "revoked";
inline constexpr std::string_view kGrantVoid = "void";

struct GrantRecord {
  std::string agent_id;        // the grantee
  std::string issuer;          // the issuing agent; "" for the operator
  std::string parent_id;       // "" for an operator grant
  bool root = false;           // `all`
  std::map<std::string, Selector> selectors;  // by SelectorKey
  uint64_t issued_sequence = 0;
  std::string status{kGrantLive};  // live, revoked, void
  // void: "operator-only", "unknown-parent", "parent-not-live", "parent-not-held",
  // "wider-than-parent". revoked: the GrantRevoked reason, or "cascade".
  std::string reason;
  std::string revoked_by;      // the grant whose revocation ended this one (itself if direct)
  uint64_t revoked_sequence = 0;
  std::vector<std::string> children;  // grants delegated from this one, in log order
};

struct RuleRecord {
  std::string agent_id;
  Selector selector;
  uint64_t added_sequence = 0;
  uint64_t removed_sequence = 0;  // 0 while the rule holds
};

struct Grants {
  std::map<std::string, GrantRecord> grants;  // by grant id, every state
  std::map<std::string, RuleRecord> rules;    // by rule id, removed ones too
  // Indexes (derived, not part of the canonical state).
  std::map<std::string, std::set<std::string>, std::less<>> grants_by_agent;
  std::map<std::string, std::set<std::string>, std::less<>> rules_by_agent;
};

void Apply(Grants& grants, uint64_t sequence, const fb::Envelope& event);

// Queries. A grant "covers" a selector when it and every ancestor are live and each is
// root or names the selector exactly.
bool Covers(const Grants& grants, std::string_view grant_id, std::string_view surface,
            std::string_view tool, std::string_view definition_sha256);
// Live, and root all the way up its chain.
bool CoversAll(const Grants& grants, std::string_view grant_id);
// The first grant id (in id order) of `agent_id` covering the selector; "" if none.
std::string CoveringGrant(const Grants& grants, std::string_view agent_id,
                          std::string_view surface, std::string_view tool,
                          std::string_view definition_sha256);
// The first rule id (in id order) of `agent_id` that holds for the selector; "" if none.
std::string MatchingRule(const Grants& grants, std::string_view agent_id,
                         std::string_view surface, std::string_view tool,
                         std::string_view definition_sha256);
// A live grant or rule of `agent_id` (the grant issued last, else the rule added last) that
// names (surface, tool) at another definition than `definition_sha256`: what a call of a
// tool changed since it was granted is refused despite (probe FT2). Empty id when none.
struct OtherDefinition {
  std::string id;                 // the grant's or rule's
  std::string definition_sha256;  // the definition it names
};
OtherDefinition HeldAtOtherDefinition(const Grants& grants, std::string_view agent_id,
                                      std::string_view surface, std::string_view tool,
                                      std::string_view definition_sha256);
// True when `agent_id` holds a grant that covers everything.
bool HoldsRoot(const Grants& grants, std::string_view agent_id);
// The id of a live grant to `agent_id` from `issuer` ("" the operator) under `parent_id`
// ("" for an operator grant) that gives exactly `root` and the selectors keyed `keys`
// (SelectorKey); "" if none. A second such grant would give nothing more, and revoking
// one of the two would not stop the calls: issuers are refused it.
std::string EqualLiveGrant(const Grants& grants, std::string_view agent_id,
                           std::string_view issuer, std::string_view parent_id, bool root,
                           const std::set<std::string>& keys);

}  // namespace las::reducers
