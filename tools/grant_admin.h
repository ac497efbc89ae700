// The operator's grant administration, as `las grant`, `las revoke`, `las grants` and
// `las rules` use it (docs/GRANTS.md, docs/CLI.md). Changes append directly to the log as
// its writer, with the operator as actor (empty agent); reads follow the log as a
// secondary instance and work while a server holds it.
//
// Errors (Status codes, mapped to exit codes by the CLI):
//   kLocked           a running server (`las serve`, `las daemon`) holds the log: nothing
//                     written (the CLI then sends the change through that server's
//                     operator channel: tools/operator_client.h);
//   kInvalidArgument  a bad agent id, tool name (not `surface__tool`, or a las__ tool),
//                     digest (not 64 lowercase hex), or neither --all nor a tool;
//   kNotFound         no such grant/rule; a tool the log's recorded catalog does not list
//                     when no digest was given; no log (reads, revoke, forget);
//   kConflict         the grant is already revoked or void / the rule already forgotten;
//   and the log's own open and read errors (kNotALog, kCorruption, kIo, ...).
// Each change is one synced append: done when it returns ok.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "log/envelope.h"
#include "reducers/grants.h"

namespace las::projections {
class ProjectionSet;
}

namespace las::tools {

// One `--tool surface__tool[@DIGEST]`: without a digest, the tool's definition digest in the
// log's recorded catalog (projections "catalog": its surface's latest CatalogLoaded).
struct ToolArg {
  std::string qualified_name;
  std::optional<std::string> digest;
};

// Splits "name@digest" (the digest after the last '@' when it is 64 lowercase hex).
ToolArg ParseToolArg(const std::string& text);

struct GrantRequest {
  std::string agent_id;
  bool all = false;
  std::vector<ToolArg> tools;
};

struct IssuedGrant {
  std::string grant_id;
  std::vector<reducers::Selector> selectors;  // empty for a root grant
};

// The log an operator's command changes, as its writer: its directory, and the file of the
// key that seals its snapshots (tools/snapshot_key_file.h) — the command folds from the
// newest one it can use, or from sequence 1 without one (the same state, only slower).
struct OperatorLog {
  std::string dir;
  std::string snapshot_key_file;
};

Result<IssuedGrant> IssueGrant(const OperatorLog& log, const GrantRequest& request,
                               const std::string& grant_id);
// The grant and every live grant delegated from it, as revoked.
Result<std::vector<std::string>> RevokeGrant(const OperatorLog& log, const std::string& grant_id);
Result<reducers::Selector> AddRule(const OperatorLog& log, const std::string& agent_id,
                                   const ToolArg& tool, const std::string& rule_id);
Status ForgetRule(const OperatorLog& log, const std::string& rule_id);

// Grant and rule ids are RandomId(prefix) (tools/random_id.h); a plan refuses an id of any
// other shape (kInvalidArgument) or one the log has used (kConflict).
inline constexpr std::string_view kGrantIdPrefix = "grant-";
inline constexpr std::string_view kRuleIdPrefix = "rule-";

// The same four changes as plans: each validates against `set` (every projection as of the
// log's head: the CLI's own fold, or a running server's live projections) and builds the
// one event draft to append, by the operator (empty agent and session). The functions
// above and a running server's operator channel (tools/operator_channel.h) both use these,
// so either path records exactly the same event. Errors as above (never kLocked).
struct GrantPlan {
  IssuedGrant issued;
  log::EventDraft draft;
};
Result<GrantPlan> PlanIssueGrant(const projections::ProjectionSet& set,
                                 const GrantRequest& request, const std::string& grant_id);
struct RevokePlan {
  std::vector<std::string> revoked;
  log::EventDraft draft;
};
Result<RevokePlan> PlanRevokeGrant(const projections::ProjectionSet& set,
                                   const std::string& grant_id);
struct RulePlan {
  reducers::Selector selector;
  log::EventDraft draft;
};
Result<RulePlan> PlanAddRule(const projections::ProjectionSet& set, const std::string& agent_id,
                             const ToolArg& tool, const std::string& rule_id);
Result<log::EventDraft> PlanForgetRule(const projections::ProjectionSet& set,
                                       const std::string& rule_id);

// What the log's recorded catalog (`set`'s "catalog") says of a selector's tool.
enum class RecordedStanding {
  kAsGranted,          // recorded at the selector's definition
  kDefinitionChanged,  // recorded at another definition: the selector covers nothing of it (probe FT2)
  kNotInCatalog,       // not recorded: its surface is not admitted (dropped from the release,
                       // refused) or lists no such tool, so nothing is served to cover (probe FW2)
  kUntold,             // recorded by an earlier Las, whose catalog does not tell definitions,
                       // or last left out by a LAS_ONLY/LAS_SKIP (probe GA5)
};
RecordedStanding StandingOf(const projections::ProjectionSet& set, const reducers::Selector& selector);

// The listing's marker for a standing: " (changed since)", " (not in the catalog)" or "".
std::string_view StandingMarker(RecordedStanding standing);
// Its stable name in JSON: "as-granted", "definition-changed", "not-in-catalog", "untold".
std::string_view StandingName(RecordedStanding standing);

// The selectors among `selectors` that cover nothing served, in their order: JSON views list
// them apart (`definitions_changed`, `not_in_catalog`), so a selector stays copyable into
// las__grant_delegate as it is.
struct UnservedSelectors {
  std::vector<reducers::Selector> definitions_changed;
  std::vector<reducers::Selector> not_in_catalog;
};
UnservedSelectors UnservedAmong(const projections::ProjectionSet& set,
                                const std::vector<reducers::Selector>& selectors);
// A grant's selectors, in its order.
std::vector<reducers::Selector> SelectorsOf(const reducers::GrantRecord& grant);

}  // namespace las::tools
