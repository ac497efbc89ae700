// `las grant`, `las revoke`, `las grants`, `las rules`: the operator's grants and
// "always allow" rules (docs/GRANTS.md). Flags and printing; tools/grant_admin.h does it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "cli/agent_flag.h"
#include "cli/path_flag.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/json_output.h"
#include "cli/log_fold.h"
#include "cli/id_argument.h"
#include "cli/operator_route.h"
#include "cli/paths.h"
#include "cli/same_file.h"
#include "cli/table.h"
#include "projections/grants_projection.h"
#include "tools/grant_admin.h"
#include "tools/random_id.h"

namespace las::cli {
namespace {

using nlohmann::ordered_json;

// The log a command changes when no server holds it, with this user's snapshot key.
tools::OperatorLog Writable(const std::string& log_dir) {
  return {log_dir, DefaultSnapshotKeyFile()};
}

ordered_json SelectorJson(const reducers::Selector& s) {
  return {{"surface", s.surface}, {"tool", s.tool}, {"definition_sha256", s.definition_sha256}};
}

ordered_json SelectorsJson(const std::vector<reducers::Selector>& selectors) {
  ordered_json out = ordered_json::array();
  for (const reducers::Selector& s : selectors) out.push_back(SelectorJson(s));
  return out;
}

std::string ToolName(const reducers::Selector& s) { return s.surface + "__" + s.tool; }

reducers::Selector SelectorFrom(const nlohmann::json& j) {
  return {j.value("surface", ""), j.value("tool", ""), j.value("definition_sha256", "")};
}

ordered_json ToolJson(const tools::ToolArg& tool) {
  ordered_json j = {{"name", tool.qualified_name}};
  if (tool.digest) j["digest"] = *tool.digest;
  return j;
}

// The change through the running server when the direct path found the log locked (the
// result object), or the status to report.
Result<nlohmann::json> ViaServer(const std::string& log_dir, const Status& locked,
                                 const std::string& method, const ordered_json& params) {
  auto answer = ThroughServer(log_dir, locked, method, DumpJson(params));
  if (!answer.ok()) return answer.status();
  return nlohmann::json::parse(*answer);
}

// A change sent to the server that did not answer (in time, or at all) may still be made:
// the id it was sent with lets the operator look for it (probe HT1: a grant made after the
// CLI's timeout could not be told from another).
Status WithSentId(const Status& status, std::string_view what, const std::string& id) {
  if (status.code() != Code::kIo) return status;
  return Status(status.code(), status.message() + " (it was sent as " + std::string(what) + " " +
                                   id + ")");
}

// On stderr, what `agent` may now call, each tool with a note when the log's catalog serves
// nothing it covers (probe HT2: a digest matching nothing was confirmed as "may call").
void ConfirmSelectors(const std::string& log_dir, const std::string& agent,
                      const std::vector<reducers::Selector>& selectors, std::string_view may) {
  projections::ProjectionSet set;
  // No notes when the log cannot be read now.
  const bool folded = !selectors.empty() && FoldLogQuietly(log_dir, set).ok();
  for (const reducers::Selector& s : selectors) {
    std::string_view note;
    switch (folded ? tools::StandingOf(set, s) : tools::RecordedStanding::kUntold) {
      case tools::RecordedStanding::kDefinitionChanged:
        note = "; the log's catalog holds the tool at another definition: this covers none of it";
        break;
      case tools::RecordedStanding::kNotInCatalog:
        note = "; the log's catalog holds no such tool: this covers nothing now";
        break;
      case tools::RecordedStanding::kAsGranted:
      case tools::RecordedStanding::kUntold: break;
    }
    std::fprintf(stderr, "las %s: %s %.*s %s (definition %s)%.*s\n", CommandWords(),
                 agent.c_str(), static_cast<int>(may.size()), may.data(), ToolName(s).c_str(),
                 s.definition_sha256.c_str(), static_cast<int>(note.size()), note.data());
  }
}

struct GrantFlags {
  std::string log_dir = DefaultLogDir();
  std::string agent;
  bool all = false;
  std::vector<std::string> tools;
  std::string digest;
};

// --digest given "": refused like an empty path (cli/path_flag.h), not read as "no digest",
// which pins whatever the log's catalog holds now (probe CY3: `--digest "$REVIEWED"` with
// the variable unset pinned an unreviewed definition).
CLI::Validator NonEmptyDigest() {
  return CLI::Validator(
      [](const std::string& digest) {
        return digest.empty() ? std::string("the digest is empty; leave the flag out to pin the "
                                            "digest in the log's recorded catalog")
                              : std::string();
      },
      "DIGEST");
}

// `--digest` for a tool named without one. A tool that names its digest (@DIGEST) and a
// --digest as well is refused, not decided for one of them (probe AV4).
Status ApplyDigestFlag(tools::ToolArg& tool, const std::string& digest) {
  if (digest.empty()) return Status::Ok();
  if (tool.digest) {
    return InvalidArgument("the tool names its digest (@DIGEST) and --digest names one too: "
                           "give it once");
  }
  tool.digest = digest;
  return Status::Ok();
}

// The log of `rules add` / `rules forget`: `rules --log DIR add ...` names it as well as
// `rules add --log DIR ...` (probe CY1: the parent's --log was read by the listing only, so
// the rule went to the default log). The parent's listing flags do not go with them.
Result<std::string> RulesLogDir(const CLI::App& rules, const std::string& rules_log,
                                const CLI::App& verb, const std::string& verb_log) {
  for (const char* listing : {"--agent", "--all", "--json"}) {
    if (rules.get_option(listing)->count() > 0) {
      return InvalidArgument(std::string(listing) + " selects what `las rules` lists; it does not go with `rules " +
                             verb.get_name() + "`");
    }
  }
  const bool on_rules = rules.get_option("--log")->count() > 0;
  const bool on_verb = verb.get_option("--log")->count() > 0;
  if (on_rules && on_verb && !SameFile(rules_log, verb_log)) {
    return InvalidArgument("--log names two logs (before and after `" + verb.get_name() +
                           "`): give it once");
  }
  return on_rules ? rules_log : verb_log;
}

int Grant(const GrantFlags& flags) {
  tools::GrantRequest request;
  request.agent_id = flags.agent;
  request.all = flags.all;
  for (const auto& text : flags.tools) request.tools.push_back(tools::ParseToolArg(text));
  if (!flags.digest.empty()) {
    if (request.tools.size() != 1) {
      return Fail(InvalidArgument("--digest goes with exactly one --tool (for several, "
                                           "write --tool surface__tool@DIGEST)"));
    }
    if (Status applied = ApplyDigestFlag(request.tools[0], flags.digest); !applied.ok()) {
      return Fail(applied);
    }
  }
  const std::string grant_id = tools::RandomId(tools::kGrantIdPrefix);
  auto issued = tools::IssueGrant(Writable(flags.log_dir), request, grant_id);
  if (!issued.ok() && issued.status().code() == Code::kLocked) {
    ordered_json tools_json = ordered_json::array();
    for (const auto& tool : request.tools) tools_json.push_back(ToolJson(tool));
    auto answer = ViaServer(flags.log_dir, issued.status(), "las/grant.issue",
                            {{"grant_id", grant_id},
                             {"agent_id", request.agent_id},
                             {"all", request.all},
                             {"tools", tools_json}});
    if (!answer.ok()) return Fail(WithSentId(answer.status(), "grant", grant_id));
    tools::IssuedGrant through{grant_id, {}};
    for (const auto& s : (*answer)["selectors"]) through.selectors.push_back(SelectorFrom(s));
    issued = std::move(through);
  }
  if (!issued.ok()) return Fail(issued.status());
  std::printf("%s\n", issued->grant_id.c_str());
  if (request.all) {
    std::fprintf(stderr, "las %s: %s holds every tool (root)\n", CommandWords(), flags.agent.c_str());
  }
  ConfirmSelectors(flags.log_dir, flags.agent, issued->selectors, "may call");
  return kExitOk;
}

struct ListFlags {
  std::string log_dir = DefaultLogDir();
  std::string agent;
  bool json = false;
  bool all = false;
};

// A listing's output: the JSON array with --json, else the aligned table.
void PrintListing(const ListFlags& flags, const ordered_json& json, const Table& table) {
  if (flags.json) {
    PrintJson(json);
  } else {
    table.Print();
  }
}

// The grants and rules the log holds (cli/log_fold.h); nullptr with `exit_code` set when
// the fold failed.
const reducers::Grants* FoldGrants(const std::string& log_dir, projections::ProjectionSet& set,
                                   int& exit_code) {
  const auto* projection =
      FoldProjection<projections::GrantsProjection>(log_dir, "grants", set, exit_code);
  return projection == nullptr ? nullptr : &projection->grants();
}

int ListGrants(const ListFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const reducers::Grants* grants = FoldGrants(flags.log_dir, set, exit_code);
  if (grants == nullptr) return exit_code;
  ordered_json out = ordered_json::array();
  std::vector<std::pair<uint64_t, std::string>> order;  // log order
  for (const auto& [id, g] : grants->grants) order.emplace_back(g.issued_sequence, id);
  std::sort(order.begin(), order.end());
  Table table({"GRANT", "AGENT", "STATUS", "ISSUER", "PARENT", "SELECTORS"});
  for (const auto& [sequence, id] : order) {
    const reducers::GrantRecord& g = grants->grants.at(id);
    if (!flags.agent.empty() && g.agent_id != flags.agent) continue;
    if (!flags.all && g.status != reducers::kGrantLive) continue;
    if (flags.json) {
      // Selectors that cover nothing served: their tool is recorded at another definition
      // (probe FT2) or not at all (probe FW2).
      const std::vector<reducers::Selector> listed = tools::SelectorsOf(g);
      const tools::UnservedSelectors unserved = tools::UnservedAmong(set, listed);
      out.push_back({{"grant_id", id},
                     {"agent_id", g.agent_id},
                     {"status", g.status},
                     {"reason", g.reason},
                     {"issuer", g.issuer},
                     {"parent_grant_id", g.parent_id},
                     {"root", g.root},
                     {"selectors", SelectorsJson(listed)},
                     {"definitions_changed", SelectorsJson(unserved.definitions_changed)},
                     {"not_in_catalog", SelectorsJson(unserved.not_in_catalog)},
                     {"issued_sequence", g.issued_sequence},
                     {"revoked_by", g.revoked_by},
                     {"revoked_sequence", g.revoked_sequence}});
      continue;
    }
    std::string what = g.root ? "all" : "";
    for (const auto& [key, s] : g.selectors) {
      if (!what.empty()) what += ", ";
      what += ToolName(s) + "@" + s.definition_sha256.substr(0, 12);
      // A grant for a definition not served covers nothing of the tool (probes FT2, FW2).
      what += tools::StandingMarker(tools::StandingOf(set, s));
    }
    // An agent may be named "(operator)" itself: quoted, it is not taken for the operator
    // (probe GH1).
    const std::string issuer = g.issuer.empty()          ? "(operator)"
                               : g.issuer == "(operator)" ? "\"(operator)\""
                                                          : g.issuer;
    table.Add({id, g.agent_id, g.status, issuer,
               g.parent_id.empty() ? "-" : g.parent_id, what});
  }
  PrintListing(flags, out, table);
  return kExitOk;
}

int ListRules(const ListFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const reducers::Grants* grants = FoldGrants(flags.log_dir, set, exit_code);
  if (grants == nullptr) return exit_code;
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [id, r] : grants->rules) order.emplace_back(r.added_sequence, id);
  std::sort(order.begin(), order.end());
  ordered_json out = ordered_json::array();
  Table table({"RULE", "AGENT", "STATUS", "TOOL", "DEFINITION"});
  for (const auto& [sequence, id] : order) {
    const reducers::RuleRecord& r = grants->rules.at(id);
    if (r.removed_sequence != 0 && !flags.all) continue;
    if (!flags.agent.empty() && r.agent_id != flags.agent) continue;
    if (flags.json) {
      ordered_json rule = {{"rule_id", id}, {"agent_id", r.agent_id}};
      const ordered_json selector = SelectorJson(r.selector);
      for (const auto& [k, v] : selector.items()) rule[k] = v;
      rule["standing"] = tools::StandingName(tools::StandingOf(set, r.selector));
      rule["added_sequence"] = r.added_sequence;
      rule["removed_sequence"] = r.removed_sequence;
      out.push_back(std::move(rule));
      continue;
    }
    table.Add({id, r.agent_id, r.removed_sequence == 0 ? "live" : "forgotten",
               ToolName(r.selector),
               r.selector.definition_sha256 +
                   std::string(tools::StandingMarker(tools::StandingOf(set, r.selector)))});
  }
  PrintListing(flags, out, table);
  return kExitOk;
}

}  // namespace

void RegisterGrants(CLI::App& app, int& exit_code) {
  auto grant_flags = std::make_shared<GrantFlags>();
  auto* grant = app.add_subcommand(
      "grant",
      std::string("Give an agent exact tools (surface__tool at its current definition digest) "
                  "or --all. Prints the grant id. Through the running server when one holds "
                  "the log (") + kThroughServerExits + ")");
  grant->add_option("agent", grant_flags->agent, "The agent id")->required();
  grant->add_flag("--all", grant_flags->all, "A root grant: every tool, now and later");
  grant->add_option("--tool", grant_flags->tools,
                    "surface__tool or surface__tool@DIGEST (repeatable); without a digest, the "
                    "tool's definition digest in the log's recorded catalog")
      ->allow_extra_args(false);  // one name per --tool: `--tool a AGENT` leaves AGENT alone
  grant->add_option("--digest", grant_flags->digest, "The definition digest of the one --tool")
      ->check(NonEmptyDigest());
  AddLogFlag(*grant, grant_flags->log_dir);
  grant->callback([grant_flags, &exit_code] { exit_code = Grant(*grant_flags); });

  auto revoke_flags = std::make_shared<std::pair<std::string, std::string>>(DefaultLogDir(), "");
  auto* revoke = app.add_subcommand(
      "revoke", std::string("Revoke a grant and everything delegated from it. Through the "
                            "running server when one holds the log (") +
                    kThroughServerExits + ")");
  revoke->add_option("grant", revoke_flags->second, "The grant id")->required()->check(IdArgument());
  AddLogFlag(*revoke, revoke_flags->first);
  revoke->callback([revoke_flags, &exit_code] {
    auto revoked = tools::RevokeGrant(Writable(revoke_flags->first), revoke_flags->second);
    if (!revoked.ok() && revoked.status().code() == Code::kLocked) {
      auto answer = ViaServer(revoke_flags->first, revoked.status(), "las/grant.revoke",
                              {{"grant_id", revoke_flags->second}});
      if (answer.ok()) {
        revoked = (*answer)["revoked"].get<std::vector<std::string>>();
      } else {
        revoked = answer.status();
      }
    }
    if (!revoked.ok()) {
      exit_code = Fail(revoked.status());
      return;
    }
    for (const auto& id : *revoked) std::printf("%s\n", id.c_str());
    std::fprintf(stderr, "las %s: revoked %s", CommandWords(), revoke_flags->second.c_str());
    if (revoked->size() > 1) {
      std::fprintf(stderr, " and the %zu grant%s delegated from it", revoked->size() - 1,
                   revoked->size() == 2 ? "" : "s");
    }
    std::fputc('\n', stderr);
    exit_code = kExitOk;
  });

  auto list_flags = std::make_shared<ListFlags>();
  auto* grants = app.add_subcommand(
      "grants", "List grants (live ones; --all for revoked and void too). Read-only; works "
                "while a server holds the log");
  grants->add_option("--agent", list_flags->agent, "Only this agent's grants")->check(AgentIdFlag());
  grants->add_flag("--all", list_flags->all, "Include revoked and void grants");
  grants->add_flag("--json", list_flags->json, "JSON array with stable field names");
  AddLogFlag(*grants, list_flags->log_dir);
  grants->callback([list_flags, &exit_code] { exit_code = ListGrants(*list_flags); });

  auto rules = app.add_subcommand("rules", "\"Always allow\" rules: list, add, forget");
  auto rule_list_flags = std::make_shared<ListFlags>();
  auto add_list_options = [&](CLI::App* sub) {
    sub->add_option("--agent", rule_list_flags->agent, "Only this agent's rules")->check(AgentIdFlag());
    sub->add_flag("--all", rule_list_flags->all, "Include forgotten rules");
    sub->add_flag("--json", rule_list_flags->json, "JSON array with stable field names");
    AddLogFlag(*sub, rule_list_flags->log_dir);
  };
  add_list_options(rules);
  auto* rules_list = rules->add_subcommand("list", "List the rules (the default). Read-only");
  add_list_options(rules_list);
  rules->callback([rules, rule_list_flags, &exit_code] {
    if (rules->get_subcommands().empty()) exit_code = ListRules(*rule_list_flags);
  });
  rules_list->callback([rule_list_flags, &exit_code] { exit_code = ListRules(*rule_list_flags); });

  struct AddFlags {
    std::string log_dir = DefaultLogDir();
    std::string agent;
    std::string tool;
    std::string digest;
  };
  auto add_flags = std::make_shared<AddFlags>();
  auto* add = rules->add_subcommand(
      "add", "Always allow AGENT to call exactly surface__tool at one definition digest "
             "(default: its digest in the log's recorded catalog). Prints the rule id");
  add->add_option("agent", add_flags->agent, "The agent id")->required();
  add->add_option("tool", add_flags->tool, "surface__tool")->required();
  add->add_option("--digest", add_flags->digest, "The definition digest")->check(NonEmptyDigest());
  AddLogFlag(*add, add_flags->log_dir);
  add->callback([rules, add, rule_list_flags, add_flags, &exit_code] {
    auto log_dir = RulesLogDir(*rules, rule_list_flags->log_dir, *add, add_flags->log_dir);
    if (!log_dir.ok()) {
      exit_code = Fail(log_dir.status());
      return;
    }
    tools::ToolArg tool = tools::ParseToolArg(add_flags->tool);
    if (Status applied = ApplyDigestFlag(tool, add_flags->digest); !applied.ok()) {
      exit_code = Fail(applied);
      return;
    }
    const std::string id = tools::RandomId(tools::kRuleIdPrefix);
    auto selector = tools::AddRule(Writable(*log_dir), add_flags->agent, tool, id);
    if (!selector.ok() && selector.status().code() == Code::kLocked) {
      auto answer = ViaServer(*log_dir, selector.status(), "las/rules.add",
                              {{"rule_id", id}, {"agent_id", add_flags->agent},
                               {"tool", ToolJson(tool)}});
      if (answer.ok()) {
        selector = SelectorFrom((*answer)["selector"]);
      } else {
        selector = WithSentId(answer.status(), "rule", id);
      }
    }
    if (!selector.ok()) {
      exit_code = Fail(selector.status());
      return;
    }
    std::printf("%s\n", id.c_str());
    ConfirmSelectors(*log_dir, add_flags->agent, {*selector}, "may always call");
    exit_code = kExitOk;
  });

  auto forget_flags = std::make_shared<std::pair<std::string, std::string>>(DefaultLogDir(), "");
  auto* forget = rules->add_subcommand("forget", "Forget a rule");
  forget->add_option("rule", forget_flags->second, "The rule id")->required()->check(IdArgument());
  AddLogFlag(*forget, forget_flags->first);
  forget->callback([rules, forget, rule_list_flags, forget_flags, &exit_code] {
    auto log_dir = RulesLogDir(*rules, rule_list_flags->log_dir, *forget, forget_flags->first);
    if (!log_dir.ok()) {
      exit_code = Fail(log_dir.status());
      return;
    }
    Status forgotten = tools::ForgetRule(Writable(*log_dir), forget_flags->second);
    if (forgotten.code() == Code::kLocked) {
      auto answer = ViaServer(*log_dir, forgotten, "las/rules.forget",
                              {{"rule_id", forget_flags->second}});
      forgotten = answer.ok() ? Status::Ok() : answer.status();
    }
    if (forgotten.ok()) {
      std::fprintf(stderr, "las %s: forgot %s\n", CommandWords(), forget_flags->second.c_str());
    }
    exit_code = forgotten.ok() ? kExitOk : Fail(forgotten);
  });
}

}  // namespace las::cli
