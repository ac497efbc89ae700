// `las inspect calls`: the call ledger, read from a live or stopped log as a follower.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "log/log_reader.h"
#include "projections/calls_projection.h"
#include "projections/replay.h"

namespace las::cli {
namespace {

struct InspectFlags {
  std::string log_dir = DefaultLogDir();
  std::string call_id;
  bool json = false;
};

int InspectCalls(const InspectFlags& flags) {
  auto reader = log::LogReader::Open(flags.log_dir);
  if (!reader.ok()) {
    std::fprintf(stderr, "las inspect: %s\n", reader.status().ToString().c_str());
    return ExitCodeFor(reader.status());
  }
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) {
    std::fprintf(stderr, "las inspect: %s\n", cursor.status().ToString().c_str());
    return ExitCodeFor(cursor.status());
  }
  projections::ProjectionSet set;
  auto outcome = projections::Replay(**cursor, {}, {}, set);
  if (!outcome.status.ok()) {
    std::fprintf(stderr, "las inspect: %s\n", outcome.status.ToString().c_str());
    return ExitCodeFor(outcome.status);
  }
  const auto* calls = dynamic_cast<const projections::CallsProjection*>(set.Find("calls"));
  std::vector<std::pair<std::string, reducers::CallRecord>> rows;
  for (const auto& [id, record] : calls->ledger().calls) {
    if (flags.call_id.empty() || id == flags.call_id) rows.emplace_back(id, record);
  }
  if (!flags.call_id.empty() && rows.empty()) {
    std::fprintf(stderr, "las inspect: not_found: the log has no call %s\n", flags.call_id.c_str());
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
                     {"surface", r.surface},
                     {"tool", r.tool},
                     {"agent_id", r.agent_id},
                     {"session_id", r.session_id},
                     {"requested_sequence", r.requested_sequence},
                     {"finished_sequence", r.finished_sequence},
                     {"duration_micros", r.duration_micros}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-42s %-10s %-30s %-12s %8s %8s\n", "CALL", "STATUS", "TOOL", "AGENT", "REQ#",
              "DONE#");
  for (const auto& [id, r] : rows) {
    const std::string tool = r.surface.empty() ? r.tool : r.surface + "__" + r.tool;
    std::printf("%-42s %-10s %-30s %-12s %8llu %8llu\n", id.c_str(), r.status.c_str(),
                tool.c_str(), r.agent_id.c_str(),
                static_cast<unsigned long long>(r.requested_sequence),
                static_cast<unsigned long long>(r.finished_sequence));
  }
  return kExitOk;
}

}  // namespace

void RegisterInspect(CLI::App& app, int& exit_code) {
  auto* inspect = app.add_subcommand("inspect", "Show a projection of the log (read-only; "
                                                "works while a server holds the log)");
  inspect->require_subcommand(1);
  auto flags = std::make_shared<InspectFlags>();
  auto* calls = inspect->add_subcommand(
      "calls",
      "The call ledger: what happened to each tool call. A call requested but never completed "
      "is uncertain: Las never retries it");
  calls->add_option("--log", flags->log_dir, "Log directory")->capture_default_str();
  calls->add_option("--call", flags->call_id, "Only this call id");
  calls->add_flag("--json", flags->json, "JSON array with stable field names");
  calls->callback([flags, &exit_code] { exit_code = InspectCalls(*flags); });
}

}  // namespace las::cli
