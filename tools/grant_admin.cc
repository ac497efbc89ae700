#include "tools/grant_admin.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "base/printable_text.h"
#include "log/event_log.h"
#include "projections/catalog_projection.h"
#include "projections/grants_projection.h"
#include "projections/snapshots.h"
#include "tools/builtin_tools.h"
#include "tools/catalog.h"
#include "tools/definition_digest.h"
#include "tools/grant_events.h"
#include "tools/grant_policy.h"
#include "tools/random_id.h"
#include "tools/registry.h"
#include "tools/sealed_log.h"
#include "tools/snapshot_key_file.h"
#include "trust/manifest.h"

namespace las::tools {
namespace {

// The log as its writer, folded. `set` holds every projection as of the head.
struct Opened {
  std::unique_ptr<log::EventLog> log;
  projections::ProjectionSet set;
};

Result<Opened> OpenAndFold(const OperatorLog& where, bool create) {
  log::LogOptions options;
  options.create_if_missing = create;
  auto log = OpenSealedLog(where.dir, where.snapshot_key_file, options, SealWriter::kOperatorVerb);
  if (!log.ok()) {
    if (log.status().code() == Code::kLocked) {
      // Named like the other verbs' lock refusals (probe BI6).
      return Locked(where.dir + ": the log is held by another las process: a server that does "
                    "not answer on its socket, or another command still writing; run this again "
                    "when it is done");
    }
    return log.status();
  }
  Opened opened;
  auto folded = projections::FoldFromNewestSnapshot(
      **log, (*log)->head().sequence, UsableSnapshotKey(where.snapshot_key_file, where.dir), opened.set);
  if (!folded.ok()) return folded.status();
  opened.log = std::move(*log);
  return opened;
}

const reducers::Grants& GrantsOf(const projections::ProjectionSet& set) {
  return dynamic_cast<const projections::GrantsProjection*>(set.Find("grants"))->grants();
}

// `tool` split into surface and tool names a release could have, digest not yet set.
// Needs no log: the verbs check it before opening one.
Result<reducers::Selector> SelectorNamed(const ToolArg& tool) {
  const std::string& name = tool.qualified_name;
  const size_t split = name.find(kNameSeparator);
  if (split == std::string::npos || split == 0 || split + 2 >= name.size()) {
    return InvalidArgument("a tool is named surface__tool, not " + QuotedForTerminal(name));
  }
  reducers::Selector selector{name.substr(0, split), name.substr(split + 2), ""};
  if (selector.surface == kOwnSurface) {
    return InvalidArgument(
        "Las's own las__ tools are not granted by name: every agent may call them, and the "
        "las.admin tools need a root grant (--all)");
  }
  if (!trust::IsValidSurfaceName(selector.surface) || !trust::IsValidToolName(selector.tool)) {
    // '@' is in no name: a digest that is not 64 lowercase hex was left in it (probe IZ3).
    const std::string digest_hint =
        name.find('@') != std::string::npos
            ? "; a definition digest after '@' is 64 lowercase hex characters"
            : "";
    return InvalidArgument("not a valid tool selector: " + EscapeAndShorten(name, kMaxQuotedBytes) +
                           " (surface [a-z0-9_-]{1,64}, tool [A-Za-z0-9_.-]{1,128}, as releases "
                           "name them" + digest_hint + ")");
  }
  if (tool.digest && !reducers::IsDigestHex(*tool.digest)) {
    return InvalidArgument("a definition digest is 64 lowercase hex characters, not " +
                           QuotedForTerminal(*tool.digest));
  }
  return selector;
}

// Why the log's catalog gives no digest for `name`, and what to do (probe FI3: a typo was
// told to run las list, which changes nothing, or to give a digest for a tool that does
// not exist). `surface`: the selector's surface as the catalog records it, or null.
std::string NoRecordedTool(const reducers::RecordedSurface* surface,
                           const reducers::Selector& selector, const std::string& name) {
  if (surface == nullptr) {
    return "the log's recorded catalog has no surface " + EscapeForTerminal(selector.surface) +
           " (run las list or las serve once with it configured and admitted, or give the "
           "tool's digest)";
  }
  if (surface->tools.empty()) {
    return "the log records no tools of surface " + EscapeForTerminal(selector.surface) +
           " now: its latest record is " + (surface->admitted ? "admitted" : "rejected") +
           (surface->reason.empty() ? "" : " (" + EscapeForTerminal(surface->reason) + ")") +
           "; run las list or las serve once with it admitted, or give the tool's digest";
  }
  constexpr size_t kNamesShown = 20;
  std::string tools;
  for (size_t i = 0; i < surface->tools.size() && i < kNamesShown; ++i) {
    tools += (i == 0 ? "" : ", ") + EscapeForTerminal(surface->tools[i].name);
  }
  if (surface->tools.size() > kNamesShown) {
    tools += ", and " + std::to_string(surface->tools.size() - kNamesShown) + " more";
  }
  return "surface " + EscapeForTerminal(selector.surface) + " has no tool " +
         EscapeForTerminal(selector.tool) + " in the log's recorded catalog (" +
         EscapeForTerminal(name) + "); its tools: " + tools;
}

// The recorded surface of `surface_name` in `set`'s catalog, or nullptr.
const reducers::RecordedSurface* RecordedSurfaceOf(const projections::ProjectionSet& set,
                                                   const std::string& surface_name) {
  const auto* catalog = dynamic_cast<const projections::CatalogProjection*>(set.Find("catalog"));
  if (catalog == nullptr) return nullptr;
  auto found = catalog->catalog().surfaces.find(surface_name);
  return found == catalog->catalog().surfaces.end() ? nullptr : &found->second;
}

// The definition digest `surface` records for `tool`: nullopt when it records no such tool,
// "" when its definition cannot be told from the log (an earlier Las's catalog).
std::optional<std::string> RecordedDefinition(const reducers::RecordedSurface& surface,
                                              const std::string& tool) {
  for (const auto& recorded : surface.tools) {
    if (recorded.name != tool) continue;
    if (!recorded.credential_templates_recorded) return std::string();
    return DefinitionDigestFromHex(recorded.input_schema_sha256, recorded.description_sha256,
                                   recorded.credential_templates_sha256);
  }
  return std::nullopt;
}

// The exact selector for `tool`: its digest as given or as the recorded catalog has it.
Result<reducers::Selector> Resolve(const projections::ProjectionSet& set, const ToolArg& tool) {
  const std::string& name = tool.qualified_name;
  Result<reducers::Selector> named = SelectorNamed(tool);
  if (!named.ok()) return named.status();
  reducers::Selector selector = std::move(named).value();
  if (tool.digest) {
    selector.definition_sha256 = *tool.digest;
  } else {
    const reducers::RecordedSurface* surface = RecordedSurfaceOf(set, selector.surface);
    const std::optional<std::string> recorded =
        surface == nullptr ? std::nullopt : RecordedDefinition(*surface, selector.tool);
    if (recorded && recorded->empty()) {
      return NotFound("the log's catalog of " + EscapeForTerminal(selector.surface) +
                      " was recorded by an earlier Las, which did not record the tool's "
                      "credential templates, so its definition cannot be told from the "
                      "log: run las list or las serve once, or give its digest (las list "
                      "--json)");
    }
    if (!recorded) return NotFound(NoRecordedTool(surface, selector, name));
    selector.definition_sha256 = *recorded;
  }
  if (!reducers::IsWellFormedSelector(selector.surface, selector.tool, selector.definition_sha256)) {
    return InvalidArgument("not a valid tool selector: " + EscapeForTerminal(name));
  }
  return selector;
}

Status AppendOne(log::EventLog& log, log::EventDraft draft) {
  std::vector<log::EventDraft> drafts;
  drafts.push_back(std::move(draft));
  auto appended = log.Append(std::move(drafts), log::Durability::kSynced);
  return appended.ok() ? Status::Ok() : appended.status();
}

const Actor kOperator{"", ""};

}  // namespace

RecordedStanding StandingOf(const projections::ProjectionSet& set, const reducers::Selector& selector) {
  const reducers::RecordedSurface* surface = RecordedSurfaceOf(set, selector.surface);
  // Left out by one process's LAS_ONLY/LAS_SKIP: says nothing of what the release serves
  // (probe GA5: a one-off `LAS_SKIP=echo las list` marked every echo grant).
  if (surface != nullptr && !surface->admitted && surface->reason == kReasonSkipped) {
    return RecordedStanding::kUntold;
  }
  const std::optional<std::string> recorded =
      surface == nullptr ? std::nullopt : RecordedDefinition(*surface, selector.tool);
  if (!recorded) return RecordedStanding::kNotInCatalog;
  if (recorded->empty()) return RecordedStanding::kUntold;
  return *recorded == selector.definition_sha256 ? RecordedStanding::kAsGranted
                                                 : RecordedStanding::kDefinitionChanged;
}

std::string_view StandingMarker(RecordedStanding standing) {
  switch (standing) {
    case RecordedStanding::kDefinitionChanged: return " (changed since)";
    case RecordedStanding::kNotInCatalog: return " (not in the catalog)";
    case RecordedStanding::kAsGranted:
    case RecordedStanding::kUntold: return "";
  }
  return "";
}

UnservedSelectors UnservedAmong(const projections::ProjectionSet& set,
                                const std::vector<reducers::Selector>& selectors) {
  UnservedSelectors unserved;
  for (const reducers::Selector& s : selectors) {
    const RecordedStanding standing = StandingOf(set, s);
    if (standing == RecordedStanding::kDefinitionChanged) unserved.definitions_changed.push_back(s);
    if (standing == RecordedStanding::kNotInCatalog) unserved.not_in_catalog.push_back(s);
  }
  return unserved;
}

std::vector<reducers::Selector> SelectorsOf(const reducers::GrantRecord& grant) {
  std::vector<reducers::Selector> selectors;
  for (const auto& [key, s] : grant.selectors) selectors.push_back(s);
  return selectors;
}

std::string_view StandingName(RecordedStanding standing) {
  switch (standing) {
    case RecordedStanding::kAsGranted: return "as-granted";
    case RecordedStanding::kDefinitionChanged: return "definition-changed";
    case RecordedStanding::kNotInCatalog: return "not-in-catalog";
    case RecordedStanding::kUntold: return "untold";
  }
  return "untold";
}

ToolArg ParseToolArg(const std::string& text) {
  const size_t at = text.rfind('@');
  if (at != std::string::npos && reducers::IsDigestHex(std::string_view(text).substr(at + 1))) {
    return {text.substr(0, at), text.substr(at + 1)};
  }
  return {text, std::nullopt};
}

namespace {

Status ValidateGrantRequest(const GrantRequest& request) {
  if (!IsValidAgentId(request.agent_id)) {
    return InvalidArgument(AgentIdRefusal(request.agent_id));
  }
  if (request.all == !request.tools.empty()) {
    return InvalidArgument("give either --all or at least one --tool");
  }
  for (const ToolArg& tool : request.tools) {
    if (auto named = SelectorNamed(tool); !named.ok()) return named.status();
  }
  return Status::Ok();
}

// A new grant or rule id: the shape the CLI makes, and not one the log has used (the reducer
// would ignore a second GrantIssued or rule under it, after the operator was told "done").
template <typename Records>
Status CheckNewId(const std::string& id, std::string_view prefix, const Records& existing) {
  if (!IsRandomIdShape(id, prefix)) {
    return InvalidArgument("an id is \"" + std::string(prefix) + "\" and 32 lowercase hex digits");
  }
  if (existing.count(id) != 0) return Conflict("the log has used the id " + id + " already");
  return Status::Ok();
}

}  // namespace

Result<GrantPlan> PlanIssueGrant(const projections::ProjectionSet& set,
                                 const GrantRequest& request, const std::string& grant_id) {
  LAS_RETURN_IF_ERROR(ValidateGrantRequest(request));
  LAS_RETURN_IF_ERROR(CheckNewId(grant_id, kGrantIdPrefix, GrantsOf(set).grants));
  IssuedGrant issued{grant_id, {}};
  std::set<std::string> keys;
  for (const auto& tool : request.tools) {
    auto selector = Resolve(set, tool);
    if (!selector.ok()) return selector.status();
    // A tool named twice is one selector (it was recorded and printed twice: probe CD5).
    if (keys.insert(reducers::SelectorKey(selector->surface, selector->tool,
                                          selector->definition_sha256))
            .second) {
      issued.selectors.push_back(std::move(*selector));
    }
  }
  if (const std::string id = reducers::EqualLiveGrant(GrantsOf(set), request.agent_id, "", "",
                                                      request.all, keys);
      !id.empty()) {
    return Conflict("grant " + id + " already gives " + EscapeForTerminal(request.agent_id) +
                    " exactly this (revoke it first to issue it anew)");
  }
  log::EventDraft draft =
      GrantIssuedEvent(kOperator, grant_id, request.agent_id, "", request.all, issued.selectors);
  return GrantPlan{std::move(issued), std::move(draft)};
}

Result<RevokePlan> PlanRevokeGrant(const projections::ProjectionSet& set,
                                   const std::string& grant_id) {
  const reducers::Grants& grants = GrantsOf(set);
  auto grant = grants.grants.find(grant_id);
  if (grant == grants.grants.end()) return NotFound("the log has no grant " + grant_id);
  if (grant->second.status != reducers::kGrantLive) {
    return Conflict("grant " + grant_id + " is " + grant->second.status + " already");
  }
  std::vector<std::string> revoked;
  std::vector<std::string> pending = {grant_id};
  while (!pending.empty()) {
    std::string next = std::move(pending.back());
    pending.pop_back();
    auto it = grants.grants.find(next);
    if (it == grants.grants.end() || it->second.status != reducers::kGrantLive) continue;
    revoked.push_back(next);
    pending.insert(pending.end(), it->second.children.begin(), it->second.children.end());
  }
  return RevokePlan{std::move(revoked),
                    GrantRevokedEvent(kOperator, grant_id, "revoked-by-operator")};
}

Result<RulePlan> PlanAddRule(const projections::ProjectionSet& set, const std::string& agent_id,
                             const ToolArg& tool, const std::string& rule_id) {
  if (!IsValidAgentId(agent_id)) {
    return InvalidArgument(AgentIdRefusal(agent_id));
  }
  LAS_RETURN_IF_ERROR(CheckNewId(rule_id, kRuleIdPrefix, GrantsOf(set).rules));
  auto selector = Resolve(set, tool);
  if (!selector.ok()) return selector.status();
  // A second rule for what one already allows would allow nothing more, and forgetting
  // one of the two would then not stop the calls.
  const std::string key = reducers::SelectorKey(selector->surface, selector->tool,
                                                selector->definition_sha256);
  for (const auto& [id, rule] : GrantsOf(set).rules) {
    if (rule.removed_sequence == 0 && rule.agent_id == agent_id &&
        reducers::SelectorKey(rule.selector.surface, rule.selector.tool,
                              rule.selector.definition_sha256) == key) {
      return Conflict("rule " + id + " already allows this tool and definition for " +
                      EscapeForTerminal(agent_id));
    }
  }
  log::EventDraft draft = PermissionRuleAddedEvent(rule_id, agent_id, *selector);
  return RulePlan{std::move(*selector), std::move(draft)};
}

Result<log::EventDraft> PlanForgetRule(const projections::ProjectionSet& set,
                                       const std::string& rule_id) {
  const reducers::Grants& grants = GrantsOf(set);
  auto rule = grants.rules.find(rule_id);
  if (rule == grants.rules.end()) return NotFound("the log has no rule " + rule_id);
  if (rule->second.removed_sequence != 0) {
    return Conflict("rule " + rule_id + " was forgotten already");
  }
  return PermissionRuleRemovedEvent(rule_id);
}

// A tool named without its digest takes the digest from the log's recorded catalog, which a
// missing log does not have: such a request opens only an existing log, so that a refused
// request (a mistyped --log) leaves no new empty log behind.
bool NeedsRecordedCatalog(const std::vector<ToolArg>& tools) {
  return std::any_of(tools.begin(), tools.end(), [](const ToolArg& t) { return !t.digest; });
}

Result<Opened> OpenForTools(const OperatorLog& log, const std::vector<ToolArg>& tools) {
  const bool needs_catalog = NeedsRecordedCatalog(tools);
  auto opened = OpenAndFold(log, /*create=*/!needs_catalog);
  if (!opened.ok() && needs_catalog && opened.status().code() == Code::kNotFound) {
    return NotFound(opened.status().message() +
                    ": a tool named without its digest needs the log's recorded catalog (run "
                    "las list or las serve once, or give its digest)");
  }
  return opened;
}

Result<IssuedGrant> IssueGrant(const OperatorLog& log, const GrantRequest& request,
                               const std::string& grant_id) {
  LAS_RETURN_IF_ERROR(ValidateGrantRequest(request));  // before the lock: a usage error wins
  auto opened = OpenForTools(log, request.tools);
  if (!opened.ok()) return opened.status();
  auto plan = PlanIssueGrant(opened->set, request, grant_id);
  if (!plan.ok()) return plan.status();
  LAS_RETURN_IF_ERROR(AppendOne(*opened->log, std::move(plan->draft)));
  return std::move(plan->issued);
}

Result<std::vector<std::string>> RevokeGrant(const OperatorLog& log, const std::string& grant_id) {
  auto opened = OpenAndFold(log, /*create=*/false);
  if (!opened.ok()) return opened.status();
  auto plan = PlanRevokeGrant(opened->set, grant_id);
  if (!plan.ok()) return plan.status();
  LAS_RETURN_IF_ERROR(AppendOne(*opened->log, std::move(plan->draft)));
  return std::move(plan->revoked);
}

Result<reducers::Selector> AddRule(const OperatorLog& log, const std::string& agent_id,
                                   const ToolArg& tool, const std::string& rule_id) {
  if (!IsValidAgentId(agent_id)) {
    return InvalidArgument(AgentIdRefusal(agent_id));
  }
  if (auto named = SelectorNamed(tool); !named.ok()) return named.status();  // before the log opens
  auto opened = OpenForTools(log, {tool});
  if (!opened.ok()) return opened.status();
  auto plan = PlanAddRule(opened->set, agent_id, tool, rule_id);
  if (!plan.ok()) return plan.status();
  LAS_RETURN_IF_ERROR(AppendOne(*opened->log, std::move(plan->draft)));
  return std::move(plan->selector);
}

Status ForgetRule(const OperatorLog& log, const std::string& rule_id) {
  auto opened = OpenAndFold(log, /*create=*/false);
  if (!opened.ok()) return opened.status();
  auto draft = PlanForgetRule(opened->set, rule_id);
  if (!draft.ok()) return draft.status();
  return AppendOne(*opened->log, std::move(*draft));
}

}  // namespace las::tools
