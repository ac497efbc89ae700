// `las onboarding [status|check [STEP]|mark STEP|reset STEP]`: the first-use journey
// (tools/onboarding_journey.h) from the command line, on the same log and the same
// events as the `las__onboarding` tool, as an aligned table or --json (docs/ONBOARDING.md).
//
// status reads the log as a follower (works while a server holds it). check, mark and
// reset append: as the log's writer when it is free; when a running server holds it,
// through that server's operator channel (cli/operator_route.h; check runs its checks
// here and sends the results); exit 7 (locked) when the server does not answer.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "base/clock.h"
#include "base/printable_text.h"
#include "cli/commands.h"
#include "cli/path_flag.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/json_output.h"
#include "cli/log_fold.h"
#include "cli/number_flags.h"
#include "cli/operator_route.h"
#include "cli/paths.h"
#include "cli/table.h"
#include "tools/sealed_log.h"
#include "cli/registry_flag.h"
#include "cli/release_settings.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/onboarding_projection.h"
#include "projections/releases_projection.h"
#include "tools/onboarding_journey.h"
#include "tools/recorded_watermarks.h"
#include "tools/registry.h"
#include "transport/child_process.h"

namespace las::cli {
namespace {

struct OnboardingFlags {
  std::string action = "status";
  std::string step;
  std::string log_dir = DefaultLogDir();
  bool json = false;
  std::string registry;
  int64_t timeout_ms = 15'000;
};

// The onboarding state and the last sequence of `log` up to `head`, folded from its newest
// snapshot (cli/log_fold.h says why that is the same state).
struct Folded {
  reducers::Onboarding state;
  uint64_t sequence = 0;
  trust::Watermarks watermarks;  // the log's, which the release check applies too
};
Result<Folded> Fold(log::LogView& log, uint64_t head, const std::string& dir) {
  projections::ProjectionSet set;
  auto folded = FoldFromUsersSnapshot(log, head, set, dir);
  if (!folded.ok()) return folded.status();
  const auto* onboarding =
      dynamic_cast<const projections::OnboardingProjection*>(set.Find("onboarding"));
  const auto* releases = dynamic_cast<const projections::ReleasesProjection*>(set.Find("releases"));
  return Folded{onboarding->state(), set.sequence(),
                releases != nullptr ? tools::RecordedWatermarks(releases->releases())
                                    : trust::Watermarks{}};
}

Result<Folded> FoldFollower(log::LogReader& reader, const std::string& dir) {
  auto head = reader.head();
  if (!head.ok()) return head.status();
  return Fold(reader, head->sequence, dir);
}

std::string ByText(const std::string& by, uint64_t sequence) {
  if (sequence == 0) return "-";
  return by.empty() ? "operator" : by;
}

// Done: what showed it. Failed: what the check found, then what to do. Pending: what to do.
std::string DetailCell(const tools::JourneyRow& row) {
  if (row.status == "done") return row.detail;
  if (row.status == "failed" && !row.detail.empty()) return row.detail + "; next: " + row.next;
  return "next: " + row.next;
}

void PrintTable(const tools::JourneyView& view, const std::vector<tools::StepResult>* checked) {
  if (checked != nullptr) {
    for (const auto& result : *checked) {
      // Details carry operator-given paths (a trust store, a workspace): escaped.
      std::printf("%-5s %-18s %s%s%s\n", result.passed ? "ok" : "FAIL", result.step.c_str(),
                  result.passed ? "" : result.reason.c_str(), result.passed ? "" : ": ",
                  EscapeForTerminal(result.detail).c_str());
    }
    std::printf("\n");
  }
  std::vector<const tools::JourneyRow*> rows;
  for (const auto& row : view.steps) {
    rows.push_back(&row);
    // Each surface's own row right under the step that checks them all.
    if (row.step == tools::kStepSurfaces) {
      for (const auto& surface : view.surfaces) rows.push_back(&surface);
    }
  }
  // Columns as wide as a terminal shows them (probe GV4: an agent id of wide characters
  // was padded by its bytes).
  Table table({"STEP", "STATUS", "REASON", "BY", "SEQ", "DETAIL"});
  for (const auto* row : rows) {
    table.Add({row->step, row->status == "failed" ? std::string("FAILED") : row->status,
               row->reason.empty() ? std::string("-") : row->reason, ByText(row->by, row->sequence),
               row->sequence == 0 ? std::string("-") : std::to_string(row->sequence), DetailCell(*row)});
  }
  table.Print();
  if (view.complete()) {
    std::printf("\nlas onboarding: complete: every step is done\n");
  } else {
    std::printf("\nlas onboarding: current step %s: %s\n", view.current.c_str(),
                EscapeForTerminal(view.next).c_str());
  }
}

void Print(const OnboardingFlags& flags, const Folded& folded,
           const std::vector<tools::StepResult>* checked) {
  const tools::JourneyView view = tools::ViewJourney(folded.state);
  if (flags.json) {
    const auto doc = nlohmann::ordered_json::parse(
        tools::JourneyJson(view, flags.action, folded.sequence, checked));
    PrintJson(doc);
  } else {
    PrintTable(view, checked);
  }
  std::fflush(stdout);
}

int ShowStatus(const OnboardingFlags& flags) {
  auto reader = log::LogReader::Open(flags.log_dir);
  if (!reader.ok()) {
    if (reader.status().code() != Code::kNotFound) return Fail(reader.status());
    // No log yet: nothing is done. Say so, and show the journey from its start.
    if (!flags.json) std::printf("(no log at %s yet: nothing recorded)\n", EscapeForTerminal(flags.log_dir).c_str());
    Print(flags, Folded{}, nullptr);
    return kExitOk;
  }
  auto folded = FoldFollower(**reader, flags.log_dir);
  if (!folded.ok()) return Fail(folded.status());
  Print(flags, *folded, nullptr);
  return kExitOk;
}

// The checks of `las onboarding check`, run here (the operator's environment and flags)
// against `state` with `registry` (--registry, loaded before the log was touched); their
// results are then recorded directly or through the server.
Result<std::vector<tools::StepResult>> RunChecks(const OnboardingFlags& flags,
                                                 const tools::Registry& registry,
                                                 const Folded& folded) {
  tools::OnboardingCheckOptions options;
  options.recorded_watermarks = folded.watermarks;
  options.environment = trust::EnvironmentFromProcess();
  options.node_executable = NodeExecutable(options.environment);
  options.start_timeout_ms = flags.timeout_ms;
  options.registry = registry;
  LAS_RETURN_IF_ERROR(transport::BecomeChildSubreaper());
  return tools::CheckOnboardingSteps(flags.step, options, folded.state);
}

// The journey as the log holds it now, read as a follower.
Result<Folded> FoldAsFollower(const std::string& log_dir) {
  auto reader = log::LogReader::Open(log_dir);
  if (!reader.ok()) return reader.status();
  return FoldFollower(**reader, log_dir);
}

// `reported` is the direct path's lock, or ServerAnswers' (which adds, in parentheses at
// the end, the socket looked for: probe CH3).
int ReportLocked(const OnboardingFlags& flags, const Status& locked, const Status& reported) {
  const std::string looked_for = reported.message().starts_with(locked.message())
                                     ? reported.message().substr(locked.message().size())
                                     : std::string();
  std::fprintf(stderr,
               "las %s: locked: another las process holds the log %s (a server that does "
               "not answer on its socket, or another command still writing); %s through a server "
               "with the las__onboarding tool (arguments {\"action\": \"%s\"%s}), or run this "
               "again when it is done. `las onboarding status` works meanwhile%s\n",
               CommandWords(),
               EscapeForTerminal(flags.log_dir).c_str(), flags.action.c_str(), flags.action.c_str(),
               flags.step.empty() ? "" : (", \"step\": \"" + flags.step + "\"").c_str(),
               EscapeForTerminal(looked_for).c_str());
  return ExitCodeFor(reported);
}

// The change through the running server that holds the log (`locked` is the direct
// path's kLocked). Check runs here first, then sends its results.
int MutateThroughServer(const OnboardingFlags& flags, const tools::Registry& registry,
                        const Status& locked) {
  if (Status answers = ServerAnswers(flags.log_dir, locked); !answers.ok()) {
    return answers.code() == Code::kLocked ? ReportLocked(flags, locked, answers) : Fail(answers);
  }
  std::vector<tools::StepResult> results;
  if (flags.action == "check") {
    auto before = FoldAsFollower(flags.log_dir);
    if (!before.ok()) return Fail(before.status());
    auto checked = RunChecks(flags, registry, *before);
    if (!checked.ok()) return Fail(checked.status());
    results = std::move(*checked);
  }
  nlohmann::json params = {{"action", flags.action}, {"step", flags.step}};
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) {
    list.push_back({{"step", r.step}, {"passed", r.passed}, {"reason", r.reason},
                    {"detail", r.detail}});
  }
  params["results"] = std::move(list);
  auto answer = ThroughServer(flags.log_dir, locked, "las/onboarding.change",
                              DumpJson(params));
  if (!answer.ok()) {
    if (answer.status().code() == Code::kLocked) {
      return ReportLocked(flags, locked, answer.status());
    }
    return Fail(answer.status());
  }
  auto after = FoldAsFollower(flags.log_dir);
  if (!after.ok()) return Fail(after.status());
  const bool checking = flags.action == "check";
  Print(flags, *after, checking ? &results : nullptr);
  if (checking) {
    for (const auto& result : results) {
      if (!result.passed) return kExitFailure;
    }
  }
  return kExitOk;
}

int Mutate(const OnboardingFlags& flags) {
  if (flags.action != "check" || !flags.step.empty()) {
    if (tools::FindOnboardingStep(flags.step) == nullptr) {
      std::fprintf(stderr, "las %s: invalid_argument: unknown step \"%s\"; the steps are %s\n", CommandWords(),
                   EscapeAndShorten(flags.step, kMaxQuotedBytes).c_str(), tools::OnboardingStepNames().c_str());
      return kExitUsage;
    }
  }
  // A bad --registry is refused before the log is opened, which would create it: a refused
  // command writes nothing (probe X4).
  tools::Registry registry = tools::DefaultRegistry();
  if (flags.action == "check" && !flags.registry.empty()) {
    Result<tools::Registry> loaded = tools::LoadRegistry(flags.registry);
    if (!loaded.ok()) return Fail(loaded.status());
    registry = std::move(loaded).value();
  }
  auto log = tools::OpenSealedLog(flags.log_dir, DefaultSnapshotKeyFile(), {}, tools::SealWriter::kOperatorVerb);
  if (!log.ok()) {
    if (log.status().code() == Code::kLocked) return MutateThroughServer(flags, registry, log.status());
    return Fail(log.status());
  }
  auto folded = Fold(**log, (*log)->head().sequence, flags.log_dir);
  if (!folded.ok()) return Fail(folded.status());

  const tools::Actor operator_actor;  // the CLI acts as the operator: no agent, no session
  std::vector<tools::StepResult> results;
  if (flags.action == "check") {
    auto checked = RunChecks(flags, registry, *folded);
    if (!checked.ok()) return Fail(checked.status());
    results = std::move(*checked);
  }
  auto events = tools::PlanOnboardingChange(flags.action, flags.step, results, operator_actor);
  if (!events.ok()) return Fail(events.status());
  if (!events->empty()) {
    auto appended = (*log)->Append(std::move(*events), log::Durability::kSynced);
    if (!appended.ok()) return Fail(appended.status());
  }
  auto refolded = Fold(**log, (*log)->head().sequence, flags.log_dir);
  if (!refolded.ok()) return Fail(refolded.status());
  const bool checking = flags.action == "check";
  Print(flags, *refolded, checking ? &results : nullptr);
  if (checking) {
    for (const auto& result : results) {
      if (!result.passed) return kExitFailure;
    }
  }
  return kExitOk;
}

void AddCommonFlags(CLI::App* cmd, OnboardingFlags& flags) {
  AddLogFlag(*cmd, flags.log_dir);
  cmd->add_flag("--json", flags.json, "Print the journey as JSON (stable fields: docs/ONBOARDING.md)");
}

}  // namespace

void RegisterOnboarding(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<OnboardingFlags>();
  const std::string steps = tools::OnboardingStepNames();
  auto* cmd = app.add_subcommand(
      "onboarding",
      "The first-use journey (the same state as the las__onboarding tool): steps, the current "
      "step and what to do next. Without a subcommand: status");
  cmd->require_subcommand(0, 1);
  AddCommonFlags(cmd, *flags);

  auto* status = cmd->add_subcommand("status", "Show every step, the current one and what to do "
                                               "next (read-only; works while a server runs)");
  AddCommonFlags(status, *flags);
  auto* check = cmd->add_subcommand(
      "check", "Re-run the real check of STEP (or of every step) and record the result; exit 1 if "
               "a check fails");
  check->add_option("step", flags->step, "One of: " + steps)
      ->check([](const std::string& step) {
        // "" would read as no step given, and check every one (probe Y4).
        return step.empty() ? std::string("an empty STEP names no step") : std::string();
      });
  AddRegistryFlag(*check, flags->registry);
  check->add_option("--timeout-ms", flags->timeout_ms,
                    "Time allowed per child for initialize and tools/list (the surfaces check)")
      ->transform(TimeoutMs(1))
      ->capture_default_str();
  AddCommonFlags(check, *flags);
  auto* mark = cmd->add_subcommand("mark", "Record STEP as done by hand (detail \"marked\")");
  mark->add_option("step", flags->step, "One of: " + steps)->required();
  AddCommonFlags(mark, *flags);
  auto* reset = cmd->add_subcommand("reset", "Record STEP as to be done again (operator-reset)");
  reset->add_option("step", flags->step, "One of: " + steps)->required();
  AddCommonFlags(reset, *flags);

  cmd->callback([flags, cmd, status, check, mark, reset, &exit_code] {
    if (check->parsed()) {
      flags->action = "check";
    } else if (mark->parsed()) {
      flags->action = "mark";
    } else if (reset->parsed()) {
      flags->action = "reset";
    } else {
      flags->action = "status";
    }
    (void)cmd;
    (void)status;
    exit_code = flags->action == "status" ? ShowStatus(*flags) : Mutate(*flags);
  });
}

}  // namespace las::cli
