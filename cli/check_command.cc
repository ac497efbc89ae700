// `las check [SURFACE...]`: every admission check for every configured surface, read-only,
// as an aligned table or --json (docs/CLI.md). The checks are tools/surface_check.h.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "base/clock.h"
#include "base/printable_text.h"
#include "cli/number_flags.h"
#include "cli/path_flag.h"
#include "cli/commands.h"
#include "cli/environment_help.h"
#include "cli/exit_codes.h"
#include "cli/log_fold.h"
#include "cli/paths.h"
#include "cli/writer_refusal.h"
#include "cli/registry_flag.h"
#include "cli/release_settings.h"
#include "projections/releases_projection.h"
#include "tools/recorded_watermarks.h"
#include "tools/registry.h"
#include "tools/snapshot_key_file.h"
#include "tools/surface_check.h"
#include "transport/child_process.h"
#include "trust/manifest.h"
#include "trust/release_paths.h"
#include "trust/rfc3339.h"
#include "cli/fail.h"

namespace las::cli {
namespace {

inline constexpr int kCheckJsonSchemaVersion = 1;
inline constexpr const char* kReleaseScope = "(release)";

struct CheckFlags {
  std::vector<std::string> surfaces;
  bool json = false;
  std::string registry;
  std::string workspace;
  std::string manifest;
  std::string signature;
  std::string trust_store;
  std::string watermark;
  std::string log_dir;  // "": no log-watermark row
  std::string snapshot_key_file = DefaultSnapshotKeyFile();
  std::optional<std::string> at;
  int64_t timeout_ms = 15'000;
};

std::string ResultWord(tools::CheckResult result) {
  // FAIL in capitals so it stands out in a long table; --json uses the lowercase names.
  return result == tools::CheckResult::kFail ? "FAIL" : std::string(tools::CheckResultName(result));
}

void PrintTable(const tools::CheckReport& report) {
  const char* headers[] = {"SURFACE", "CHECK", "RESULT", "REASON"};
  size_t width[4];
  for (size_t i = 0; i < 4; ++i) width[i] = std::string_view(headers[i]).size();
  // Escaped: a detail may quote what a child listed (never raw control characters).
  auto cells = [](const tools::CheckRow& row) {
    return std::array<std::string, 4>{
        EscapeForTerminal(row.surface.empty() ? kReleaseScope : row.surface),
        EscapeForTerminal(row.check), ResultWord(row.result), EscapeForTerminal(row.reason)};
  };
  for (const tools::CheckRow& row : report.rows) {
    const auto c = cells(row);
    for (size_t i = 0; i < 4; ++i) width[i] = std::max(width[i], c[i].size());
  }
  auto line = [&](const std::array<std::string, 4>& c, const std::string& detail) {
    std::string out;
    for (size_t i = 0; i < 4; ++i) {
      out += c[i];
      out += std::string(width[i] - c[i].size() + 2, ' ');
    }
    out += detail;
    std::printf("%s\n", out.c_str());
  };
  line({headers[0], headers[1], headers[2], headers[3]}, "DETAIL");
  for (const tools::CheckRow& row : report.rows) line(cells(row), EscapeAndShorten(row.detail));

  const size_t failed = report.Count(tools::CheckResult::kFail);
  const size_t passed = report.Count(tools::CheckResult::kOk);
  const size_t skipped = report.Count(tools::CheckResult::kSkip);
  const std::string skipped_text = skipped == 0 ? "" : ", " + std::to_string(skipped) + " skipped";
  if (failed == 0) {
    std::printf("\nlas check: ok: %zu checks passed%s\n", passed, skipped_text.c_str());
  } else {
    std::printf("\nlas check: FAILED: %zu of %zu checks failed%s; fix them and run las check again\n",
                failed, failed + passed, skipped_text.c_str());
  }
}

void PrintJson(const tools::CheckReport& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const tools::CheckRow& row : report.rows) {
    checks.push_back({{"surface", row.surface.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.surface)},
                      {"check", row.check},
                      {"result", tools::CheckResultName(row.result)},
                      {"reason", row.reason},
                      {"detail", row.detail}});
  }
  const nlohmann::json out = {
      {"schema_version", kCheckJsonSchemaVersion},
      {"ok", report.ok()},
      {"checked_at", trust::FormatRfc3339UtcMicros(report.checked_at_micros)},
      {"counts", {{"ok", report.Count(tools::CheckResult::kOk)},
                  {"fail", report.Count(tools::CheckResult::kFail)},
                  {"skip", report.Count(tools::CheckResult::kSkip)}}},
      {"checks", checks}};
  std::printf("%s\n", DumpJson(out, 2).c_str());
}

int RunCheck(const CheckFlags& flags) {
  // A name no surface can have ("", " ") would come back as a failed row that reads as the
  // release's own (probes X3, Y4).
  for (const std::string& surface : flags.surfaces) {
    if (!trust::IsValidSurfaceName(surface)) {
      return Fail(InvalidArgument("'" + EscapeForTerminal(surface) +
                                  "' is not a surface name ([a-z0-9_-], 1 to 64 characters)"));
    }
  }
  const trust::Environment env = trust::EnvironmentFromProcess();
  tools::SurfaceCheckOptions options;
  options.surfaces = flags.surfaces;
  options.start_timeout_ms = flags.timeout_ms;
  options.release = ReleaseFilesFromFlags(flags.manifest, flags.signature, flags.trust_store,
                                         flags.watermark, env);
  tools::ReleaseCheckOptions& release = options.release;
  release.check_watermark = true;
  Result<int64_t> at = CheckTime(flags.at, SystemWallClock().NowMicros());
  if (!at.ok()) {
    return Fail(at.status());
  }
  release.now_micros = *at;
  if (!flags.log_dir.empty()) {
    int folded = kExitOk;
    projections::ProjectionSet set;
    const auto* releases =
        FoldProjection<projections::ReleasesProjection>(flags.log_dir, "releases", set, folded,
                                                        flags.snapshot_key_file);
    if (releases == nullptr) return folded;
    release.recorded = tools::RecordedWatermarks(releases->releases());
    release.recorded_log = flags.log_dir;
    if (const auto key = tools::UsableSnapshotKey(flags.snapshot_key_file, flags.log_dir)) {
      std::string unjudged;
      Status refusal = WriterRefusal(flags.log_dir, flags.snapshot_key_file, *key, &unjudged);
      if (!refusal.ok() && refusal.code() != Code::kCorruption) return Fail(refusal);
      if (!refusal.ok()) release.recorded_log_refusal = refusal.message();
      // A copy, say: what the key could not vouch for is said beside the row (probe FM3).
      if (refusal.ok() && !unjudged.empty()) {
        release.recorded_log_unjudged = "judged with the snapshot key, but " + unjudged;
      }
    } else {
      release.recorded_log_unjudged =
          "not judged against the head kept for it nor its seal: " +
          (flags.snapshot_key_file.empty()
               ? std::string("--snapshot-key \"\" turns the seal off")
               : "no usable snapshot key in '" + flags.snapshot_key_file + "'");
    }
  }
  options.policy.workspace = PathFlagOrEnv(flags.workspace, env, "LAS_WORKSPACE");
  options.policy.node_executable = NodeExecutable(env);
  options.policy.environment = env;
  if (flags.registry.empty()) {
    options.registry = tools::DefaultRegistry();
  } else {
    Result<tools::Registry> registry = tools::LoadRegistry(flags.registry);
    if (!registry.ok()) {
      return Fail(registry.status());
    }
    options.registry = std::move(registry).value();
    options.registry_file = flags.registry;
  }
  if (Status reaper = transport::BecomeChildSubreaper(); !reaper.ok()) {
    return Fail(reaper);
  }

  const tools::CheckReport report = tools::RunChecks(options);
  if (flags.json) {
    PrintJson(report);
  } else {
    PrintTable(report);
  }
  std::fflush(stdout);
  return report.ok() ? kExitOk : kExitFailure;
}

}  // namespace

void RegisterCheck(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<CheckFlags>();
  auto* cmd = app.add_subcommand(
      "check",
      "Run every admission check (release signature, expiry, sequence vs watermark, file "
      "permissions, launch checks, live tools/list) for each configured surface, read-only. "
      "Exit 1 if any check fails; re-run after a fix");
  cmd->footer(CheckEnvironmentHelp());
  cmd->add_option("surfaces", flags->surfaces, "Surfaces to check (default: every configured surface)");
  cmd->add_flag("--json", flags->json, "Print the report as JSON (stable fields: docs/CLI.md)");
  AddRegistryFlag(*cmd, flags->registry);
  cmd->add_option("--workspace", flags->workspace, "Workspace root (default: LAS_WORKSPACE)")
      ->check(NonEmptyPathOr("LAS_WORKSPACE"));
  AddReleaseFileFlags(*cmd, flags->manifest, flags->signature, flags->trust_store,
                      flags->watermark, "Watermark (default: LAS_RELEASE_WATERMARK)");
  auto* log_option = cmd->add_option("--log", flags->log_dir,
                  "Also check the release against the watermark this log recorded, which "
                  "`las serve` on it applies (read-only; works while a server holds it)")
      ->check(NonEmptyPath("leave the flag out to check against the watermark file only"));
  cmd->add_option("--snapshot-key", flags->snapshot_key_file,
                  "With --log: the snapshot key whose head seal and kept head judge that log, "
                  "as `las serve --snapshot-key` on it does")
      ->capture_default_str()
      ->needs(log_option);
  cmd->add_option("--at", flags->at, "Check expiry as of this instant (RFC 3339 UTC) instead of now");
  cmd->add_option("--timeout-ms", flags->timeout_ms, "Time allowed per child for initialize and tools/list")
      ->transform(TimeoutMs(1))
      ->capture_default_str();
  cmd->callback([flags, &exit_code] { exit_code = RunCheck(*flags); });
}

}  // namespace las::cli
