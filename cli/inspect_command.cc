// `las inspect calls|catalog|watermarks|sources|sessions|handles`: projections of the log,
// read from a live or stopped log as a follower (`state`, `messages`, `handles`:
// cli/inspect_coordination.cc).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/printable_text.h"
#include "cli/agent_flag.h"
#include "cli/commands.h"
#include "cli/path_flag.h"
#include "cli/exit_codes.h"
#include "cli/id_argument.h"
#include "cli/inspect_flags.h"
#include "cli/json_output.h"
#include "cli/log_fold.h"
#include "cli/paths.h"
#include "cli/table.h"
#include "projections/catalog_projection.h"
#include "projections/releases_projection.h"
#include "reducers/sessions.h"
#include "projections/sources_projection.h"
#include "projections/replay.h"
#include "reducers/call_ledger.h"
#include "cli/fail.h"

namespace las::cli {
namespace {

int InspectCalls(const InspectFlags& flags) {
  // The per-call ledger is not a projection of the set (the "calls" projection keeps only
  // a summary): fold it here from the verified events.
  reducers::CallLedger ledger;
  if (const int exit_code = FoldEventsInto(flags.log_dir, ledger); exit_code != kExitOk) {
    return exit_code;
  }
  std::vector<std::pair<std::string, reducers::CallRecord>> rows;
  for (const auto& [id, record] : ledger.calls) {
    if (!flags.call_id || id == *flags.call_id) rows.emplace_back(id, record);
  }
  if (flags.call_id && rows.empty()) {
    std::fprintf(stderr, "las %s: not_found: the log has no call %s\n", CommandWords(),
                 EscapeAndShorten(*flags.call_id, kMaxQuotedBytes).c_str());
    return ExitCodeFor(NotFound(""));
  }
  // Log order: by the event that first named the call.
  auto first_seen = [](const reducers::CallRecord& r) {
    return r.requested_sequence != 0 ? r.requested_sequence : r.finished_sequence;
  };
  std::sort(rows.begin(), rows.end(),
            [&](const auto& a, const auto& b) { return first_seen(a.second) < first_seen(b.second); });
  if (flags.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [id, r] : rows) {
      out.push_back({{"call_id", id},
                     {"status", r.status},
                     {"reason", r.reason},
                     {"detail", r.detail},
                     {"surface", r.surface},
                     {"tool", r.tool},
                     {"agent_id", r.agent_id},
                     {"session_id", r.session_id},
                     {"requested_sequence", r.requested_sequence},
                     {"finished_sequence", r.finished_sequence},
                     {"duration_micros", r.duration_micros}});
    }
    PrintJson(out);
    return kExitOk;
  }
  // A denied call was never requested: no event number to show (probe FT8: "0" read as one).
  auto event_number = [](uint64_t sequence) {
    return sequence == 0 ? std::string("-") : std::to_string(sequence);
  };
  Table table({"CALL", "STATUS", "REASON", "TOOL", "AGENT", "REQ#", "DONE#"});
  for (const auto& [id, r] : rows) {
    table.Add({id, r.status, r.reason.empty() ? "-" : r.reason,
               r.surface.empty() ? r.tool : r.surface + "__" + r.tool, r.agent_id,
               event_number(r.requested_sequence), event_number(r.finished_sequence)});
  }
  table.Print();
  // One call: why it was denied, which the table has no room for (probe FT8: only `las
  // replay` showed the failing fields).
  if (flags.call_id && !rows.front().second.detail.empty()) {
    std::printf("detail  %s\n", EscapeForTerminal(rows.front().second.detail).c_str());
  }
  return kExitOk;
}

std::string U(uint64_t n) { return std::to_string(n); }

// The catalog as last recorded: per surface its verdict and the tools CatalogLoaded named.
int InspectCatalog(const InspectFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* catalog =
      FoldProjection<projections::CatalogProjection>(flags.log_dir, "catalog", set, exit_code);
  if (catalog == nullptr) return exit_code;
  if (flags.json) {
    nlohmann::ordered_json surfaces = nlohmann::ordered_json::array();
    for (const auto& [name, s] : catalog->catalog().surfaces) {
      nlohmann::ordered_json tools = nlohmann::ordered_json::array();
      for (const auto& t : s.tools) {
        tools.push_back({{"name", t.name},
                         {"input_schema_sha256", t.input_schema_sha256},
                         {"description_sha256", t.description_sha256}});
      }
      surfaces.push_back({{"surface", name},
                          {"admitted", s.admitted},
                          {"reason", s.reason},
                          {"detail", s.detail},
                          {"release_sequence", s.release_sequence},
                          {"sequence", s.sequence},
                          {"tools", std::move(tools)}});
    }
    PrintJson({{"surfaces", std::move(surfaces)}});
    return kExitOk;
  }
  Table table({"SURFACE", "STATUS", "REASON", "RELEASE", "SEQ", "TOOLS"});
  for (const auto& [name, s] : catalog->catalog().surfaces) {
    std::string tools;
    for (const auto& t : s.tools) tools += (tools.empty() ? "" : ",") + t.name;
    table.Add({name, s.admitted ? "admitted" : "rejected", s.reason.empty() ? "-" : s.reason,
               U(s.release_sequence), U(s.sequence), tools.empty() ? "-" : tools});
  }
  table.Print();
  return kExitOk;
}

int InspectWatermarks(const InspectFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* releases =
      FoldProjection<projections::ReleasesProjection>(flags.log_dir, "releases", set, exit_code);
  if (releases == nullptr) return exit_code;
  if (flags.json) {
    nlohmann::ordered_json keys = nlohmann::ordered_json::array();
    for (const auto& [id, k] : releases->releases().keys) {
      keys.push_back({{"key_id", id},
                      {"watermark", k.watermark},
                      {"manifest_sha256", k.manifest_sha256},
                      {"accepted", k.accepted},
                      {"rejected", k.rejected},
                      {"last_rejection", k.last_rejection}});
    }
    PrintJson({{"keys", std::move(keys)}});
    return kExitOk;
  }
  Table table({"KEY", "WATERMARK", "ACCEPTED", "REJECTED", "LAST_REJECTION"});
  for (const auto& [id, k] : releases->releases().keys) {
    // The "" key collects the releases refused before their signature verified (unknown
    // key, bad signature, ...: ReleaseRejected then names no key); it has no watermark.
    const bool no_key = id.empty();
    table.Add({no_key ? "(no key)" : id, no_key ? "-" : U(k.watermark), U(k.accepted),
               U(k.rejected), k.last_rejection.empty() ? "-" : k.last_rejection});
  }
  table.Print();
  return kExitOk;
}

int InspectSources(const InspectFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* sources =
      FoldProjection<projections::SourcesProjection>(flags.log_dir, "sources", set, exit_code);
  if (sources == nullptr) return exit_code;
  if (flags.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [id, t] : sources->toggles().by_id) {
      out.push_back({{"source_id", id},
                     {"enabled", t.enabled},
                     {"reason", t.reason},
                     {"agent_id", t.agent_id},
                     {"sequence", t.sequence}});
    }
    PrintJson({{"sources", std::move(out)}});
    return kExitOk;
  }
  Table table({"SOURCE", "STATE", "REASON", "BY", "SEQ"});
  for (const auto& [id, t] : sources->toggles().by_id) {
    table.Add({id, t.enabled ? "enabled" : "disabled", t.reason.empty() ? "-" : t.reason,
               t.agent_id.empty() ? "operator" : t.agent_id, U(t.sequence)});
  }
  table.Print();
  return kExitOk;
}

int InspectSessions(const InspectFlags& flags) {
  // Every session, closed ones too: not a projection of the set (the "sessions" projection
  // keeps only the open ones), so folded here from the verified events.
  reducers::SessionHistory history;
  if (const int exit_code = FoldEventsInto(flags.log_dir, history); exit_code != kExitOk) {
    return exit_code;
  }
  // In the order they opened, as the log has them, not by id (random; probe BH9).
  using Entry = std::pair<const std::string, reducers::SessionHistoryRecord>;
  std::vector<const Entry*> in_order;
  for (const auto& entry : history.by_id) in_order.push_back(&entry);
  std::sort(in_order.begin(), in_order.end(), [](const Entry* a, const Entry* b) {
    return a->second.opened_sequence < b->second.opened_sequence;
  });
  if (flags.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto* entry : in_order) {
      const auto& [id, r] = *entry;
      out.push_back({{"session_id", id},
                     {"agent_id", r.agent_id},
                     {"client_name", r.client_name},
                     {"client_version", r.client_version},
                     {"transport", r.transport},
                     {"implicit_root", r.implicit_root},
                     {"opened_sequence", r.opened_sequence},
                     {"closed_sequence", r.closed_sequence},
                     {"close_reason", r.close_reason}});
    }
    nlohmann::ordered_json refused = nlohmann::ordered_json::array();
    for (const reducers::RefusedSession& r : history.refused) {
      refused.push_back({{"sequence", r.sequence},
                         {"agent_id", r.agent_id},
                         {"reason", r.reason},
                         {"client_name", r.client_name},
                         {"client_version", r.client_version},
                         {"transport", r.transport}});
    }
    PrintJson({{"sessions", std::move(out)}, {"refused", std::move(refused)}});
    return kExitOk;
  }
  // Refused initializes interleave by sequence: no session id, CLOSED# "refused", and the
  // policy's reason (probe FV3: they were in no view).
  Table table({"SESSION", "AGENT", "ROOT", "CLIENT", "OPENED#", "CLOSED#", "REASON"});
  auto refused = history.refused.begin();
  auto add_refused_before = [&](uint64_t sequence) {
    for (; refused != history.refused.end() && refused->sequence < sequence; ++refused) {
      table.Add({"-", refused->agent_id, "-", refused->client_name, U(refused->sequence), "refused",
                 refused->reason});
    }
  };
  for (const auto* entry : in_order) {
    const auto& [id, r] = *entry;
    add_refused_before(r.opened_sequence);
    table.Add({id, r.agent_id, r.implicit_root ? "yes" : "-", r.client_name, U(r.opened_sequence),
               r.closed_sequence == 0 ? "open" : U(r.closed_sequence),
               r.close_reason.empty() ? "-" : r.close_reason});
  }
  add_refused_before(UINT64_MAX);
  table.Print();
  return kExitOk;
}

}  // namespace

void RegisterInspect(CLI::App& app, int& exit_code) {
  auto* inspect = app.add_subcommand("inspect", "Show a projection of the log (read-only; "
                                                "works while a server holds the log)");
  inspect->require_subcommand(1);
  auto flags = std::make_shared<InspectFlags>();
  flags->log_dir = DefaultLogDir();
  // Every view: its log, --json and what it runs; the caller adds its own flags.
  auto view = [&](const char* name, const char* help, int (*run)(const InspectFlags&),
                  CLI::Option** json = nullptr) {
    auto* cmd = inspect->add_subcommand(name, help);
    AddLogFlag(*cmd, flags->log_dir);
    auto* json_flag = cmd->add_flag("--json", flags->json, "JSON with stable field names");
    if (json != nullptr) *json = json_flag;
    cmd->callback([flags, &exit_code, run] { exit_code = run(*flags); });
    return cmd;
  };
  view("calls",
       "The call ledger: what happened to each tool call. A call requested but never completed "
       "is uncertain: Las never retries it",
       InspectCalls)
      ->add_option("--call", flags->call_id, "Only this call id")
      // No call has an empty or blank id; taken as "no filter" it printed every call.
      ->check(IdArgument());
  view("catalog",
       "The federated catalog as last recorded in the log: per surface its admission verdict "
       "and the tools its CatalogLoaded named",
       InspectCatalog);
  view("watermarks", "Per trust key: the release watermark and verdict counts", InspectWatermarks);
  view("sources", "Sources an operator enabled or disabled (SourceEnabled/SourceDisabled)",
       InspectSources);
  view("sessions", "Every MCP session: agent, client, how it ended", InspectSessions);
  CLI::Option* state_json = nullptr;
  view("state", "The blackboard and every agent's private state: each key's current version",
       InspectState, &state_json)
      ->add_flag("--values", flags->values, "With --json: each key's current value")
      ->needs(state_json);
  view("messages", "Every message between agents: sender, recipient, subject, state (no bodies)",
       InspectMessages)
      ->add_option("--agent", flags->agent, "Only this recipient's mailbox")
      ->check(AgentIdFlag());
  view("handles", "Every handle: owner, media type, size, digest (no contents)", InspectHandles);
}

}  // namespace las::cli
