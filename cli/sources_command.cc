// `las sources`: the source inventory as recorded in the log (docs/SOURCES.md), and
// enabling/disabling a source: appended directly when the log is free, else through the
// running server's operator channel (cli/operator_route.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "base/printable_text.h"
#include "cli/commands.h"
#include "cli/path_flag.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/id_argument.h"
#include "cli/log_fold.h"
#include "cli/operator_route.h"
#include "cli/paths.h"
#include "tools/sealed_log.h"
#include "cli/registry_flag.h"
#include "cli/table.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/catalog_projection.h"
#include "projections/sources_projection.h"
#include "tools/registry.h"
#include "tools/source_events.h"
#include "tools/source_ids.h"
#include "tools/source_json.h"
#include "tools/sources.h"

namespace las::cli {
namespace {

struct SourcesFlags {
  std::string log_dir = DefaultLogDir();
  std::string registry_file;
  bool json = false;
  std::string id;
  std::string reason = "operator";
};

// The inventory as the log records it; prints the error and sets `exit_code` on failure.
std::optional<std::vector<tools::Source>> Inventory(const SourcesFlags& flags,
                                                    int& exit_code) {
  tools::Registry registry = tools::DefaultRegistry();
  if (!flags.registry_file.empty()) {
    auto loaded = tools::LoadRegistry(flags.registry_file);
    if (!loaded.ok()) {
      exit_code = Fail(loaded.status());
      return std::nullopt;
    }
    registry = std::move(*loaded);
  }
  projections::ProjectionSet set;
  if ((exit_code = FoldLog(flags.log_dir, set)) != kExitOk) return std::nullopt;
  std::vector<std::string> configured;
  for (const auto& surface : registry.surfaces) configured.push_back(surface.name);
  const auto* catalog = dynamic_cast<const projections::CatalogProjection*>(set.Find("catalog"));
  const auto* toggles = dynamic_cast<const projections::SourcesProjection*>(set.Find("sources"));
  return tools::BuildInventory(
      tools::FactsFromLog(catalog->catalog(), configured, &toggles->toggles()));
}

std::string Count(size_t n) { return std::to_string(n); }

int List(const SourcesFlags& flags) {
  int exit_code = kExitOk;
  auto sources = Inventory(flags, exit_code);
  if (!sources) return exit_code;
  if (flags.json) {
    std::printf("%s\n", tools::SourceListJson(*sources, 0, sources->size(),
                                              tools::kDefaultPreview, 2).c_str());
    return kExitOk;
  }
  Table table({"ID", "KIND", "STATE", "TOOLS", "PROMPTS", "RESOURCES", "REDUCERS", "DESCRIPTION"});
  for (const auto& s : *sources) {
    table.Add({s.id, s.kind, s.enabled ? "enabled" : "disabled", Count(s.tools.size()),
               Count(s.prompts.size()), Count(s.resources.size()), Count(s.reducers.size()),
               s.enabled ? s.description : s.description + " (disabled: " + s.disabled_reason + ")"});
  }
  table.Print();
  return kExitOk;
}

int Inspect(const SourcesFlags& flags) {
  int exit_code = kExitOk;
  auto sources = Inventory(flags, exit_code);
  if (!sources) return exit_code;
  const tools::Source* source = tools::FindSource(*sources, flags.id);
  if (source == nullptr) {
    std::fprintf(stderr, "las %s: not_found: no source %s\n", CommandWords(), EscapeAndShorten(flags.id, kMaxQuotedBytes).c_str());
    return ExitCodeFor(NotFound(""));
  }
  if (flags.json) {
    std::printf("%s\n", tools::SourceDetailJson(*source, 2).c_str());
    return kExitOk;
  }
  const std::string state =
      source->enabled ? "enabled" : "disabled (" + EscapeForTerminal(source->disabled_reason) + ")";
  std::printf("id:          %s\nkind:        %s\nstate:       %s\ndescription: %s\n",
              EscapeForTerminal(source->id).c_str(), EscapeForTerminal(source->kind).c_str(), state.c_str(),
              EscapeForTerminal(source->description).c_str());
  Table table({"KIND", "NAME", "DETAIL"});
  for (const auto& t : source->tools) table.Add({"tool", t.name, t.description});
  for (const auto& p : source->prompts) table.Add({"prompt", p.name, p.description});
  for (const auto& r : source->resources) table.Add({"resource", r.name, r.uri});
  for (const auto& r : source->reducers) table.Add({"reducer", r.name, r.description});
  std::printf("\n");
  table.Print();
  return kExitOk;
}

int PrintUnchanged(const SourcesFlags& flags, bool enable) {
  std::printf("%s is already %s; nothing recorded\n", flags.id.c_str(),
              enable ? "enabled" : "disabled");
  return kExitOk;
}

int PrintChanged(const SourcesFlags& flags, bool enable, uint64_t sequence) {
  std::printf("%s %s (event %llu)\n", enable ? "enabled" : "disabled", flags.id.c_str(),
              static_cast<unsigned long long>(sequence));
  return kExitOk;
}

// Sends the toggle to the server that holds the log (`locked`: why it could not be opened)
// and prints its outcome; the exit code.
int ToggleThroughServer(const SourcesFlags& flags, bool enable, const Status& locked) {
  const nlohmann::json params = {{"id", flags.id}, {"reason", flags.reason}};
  auto answer = ThroughServer(flags.log_dir, locked,
                              enable ? "las/sources.enable" : "las/sources.disable",
                              DumpJson(params));
  if (!answer.ok()) {
    std::string shown = Shown(answer.status());
    if (answer.status().code() == Code::kLocked) {
      shown += std::string("; if a server holds the log, change the source through it: the "
                           "las__") +
               (enable ? "enable" : "disable") + "_source tool of `las serve --admin`";
    } else if (answer.status().code() == Code::kNotFound) {
      // Its registry may differ from this command's (probe DR2).
      shown += "; decided by the server that holds the log: its registry does not configure "
               "it, and the log never named it";
    }
    std::fprintf(stderr, "las %s: %s\n", CommandWords(), shown.c_str());
    return ExitCodeFor(answer.status());
  }
  const auto answered = nlohmann::json::parse(*answer);
  if (!answered.value("changed", true)) return PrintUnchanged(flags, enable);
  return PrintChanged(flags, enable, answered.value("first_sequence", uint64_t{0}));
}

int Toggle(const SourcesFlags& flags, bool enable) {
  int exit_code = kExitOk;
  auto sources = Inventory(flags, exit_code);  // also: the log exists
  if (!sources) return exit_code;
  auto plan = tools::PlanSourceToggle(*sources, flags.id, enable, flags.reason, "", "");
  if (!plan.ok()) {
    // A protected source or a bad reason is refused by every server alike: here, before
    // the log is touched. An id this command does not know may be a source of the
    // registry of a server that holds the log: that server decides, if one answers
    // (probe DR3: asked only once the writer lock was tried, which a server starting
    // then found taken).
    if (plan.status().code() != Code::kNotFound ||
        !ServerAnswers(flags.log_dir, plan.status()).ok()) {
      return Fail(plan.status());
    }
    return ToggleThroughServer(flags, enable, plan.status());
  }
  auto log = tools::OpenSealedLog(flags.log_dir, DefaultSnapshotKeyFile(), {}, tools::SealWriter::kOperatorVerb);
  if (log.ok()) {  // the log is free: append directly
    // Decided here only when no server holds the log: this process's view of a held log
    // includes events not on disk yet, which its server must not be told of (probe DM3).
    if (!plan->has_value()) return PrintUnchanged(flags, enable);
    auto appended = (*log)->Append({std::move(**plan)});
    if (!appended.ok()) {
      return Fail(appended.status());
    }
    return PrintChanged(flags, enable, appended->first);
  }
  if (log.status().code() == Code::kLocked) return ToggleThroughServer(flags, enable, log.status());
  return Fail(log.status());
}

void AddLogFlags(CLI::App& cmd, SourcesFlags& flags) {
  AddLogFlag(cmd, flags.log_dir);
  AddRegistryFlag(cmd, flags.registry_file);
}

}  // namespace

void RegisterSources(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<SourcesFlags>();
  auto* sources = app.add_subcommand(
      "sources",
      "The source inventory as recorded in the log (read-only; works while a server holds "
      "the log); enable or disable a source");
  AddLogFlags(*sources, *flags);
  sources->add_flag("--json", flags->json, "The paged list's JSON (docs/SOURCES.md)");
  sources->callback([flags, &exit_code, sources] {
    if (sources->get_subcommands().empty()) exit_code = List(*flags);
  });

  auto* inspect = sources->add_subcommand("inspect", "One source's full inventory");
  inspect->add_option("ID", flags->id, "Source id")->required()->check(IdArgument());
  AddLogFlags(*inspect, *flags);
  inspect->add_flag("--json", flags->json, "JSON with stable field names");
  inspect->callback([flags, &exit_code] { exit_code = Inspect(*flags); });

  auto* enable = sources->add_subcommand(
      "enable", std::string("Append SourceEnabled (through the running server when one holds "
                            "the log; ") + kThroughServerExits + ")");
  enable->add_option("ID", flags->id, "Source id")->required()->check(IdArgument());
  AddLogFlags(*enable, *flags);
  enable->callback([flags, &exit_code] { exit_code = Toggle(*flags, true); });

  auto* disable = sources->add_subcommand(
      "disable",
      std::string("Append SourceDisabled: its tools leave tools/list and calls are refused, "
                  "across restarts (through the running server when one holds the log; ") +
          kThroughServerExits + ")");
  disable->add_option("ID", flags->id, "Source id")->required()->check(IdArgument());
  // An empty reason would be recorded as the operator's word for why (probe BI6): refused.
  disable->add_option("--reason", flags->reason, "Why (recorded; not empty)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& reason) {
            // Blank is as empty: it would be recorded as nothing said (probe GV6).
            return reason.find_first_not_of(" \t") == std::string::npos
                       ? std::string("the reason is empty; give one, or leave the flag out to "
                                     "record 'operator'")
                       : std::string();
          },
          ""));
  AddLogFlags(*disable, *flags);
  disable->callback([flags, &exit_code] { exit_code = Toggle(*flags, false); });
}

}  // namespace las::cli
