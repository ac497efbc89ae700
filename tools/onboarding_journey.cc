#include "tools/onboarding_journey.h"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "base/printable_text.h"
#include "log/event_builder.h"
#include "tools/surface_check.h"
#include "trust/release_paths.h"
#include "trust/manifest.h"
#include "trust/release_verifier.h"
#include "trust/rfc3339.h"
#include "trust/trust_store.h"

namespace las::tools {
namespace {

constexpr std::string_view kAccepted = "accepted";

StepResult Pass(std::string_view step, std::string detail) {
  return {std::string(step), true, std::string(kAccepted), std::move(detail)};
}
StepResult Fail(std::string_view step, std::string_view reason, std::string detail) {
  return {std::string(step), false, std::string(reason), std::move(detail)};
}
StepResult Fail(std::string_view step, const trust::Verdict& verdict) {
  return Fail(step, verdict.reason_name(), verdict.detail());
}

std::string EnvValue(const trust::Environment& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

// LAS_TRUST_STORE set and absolute; the verdict of the first rule it breaks.
trust::Verdict TrustStorePath(const trust::Environment& env, std::string* path) {
  *path = EnvValue(env, trust::kEnvTrustStore);
  if (path->empty()) {
    return trust::Reject(trust::Reason::kNotConfigured,
                         std::string(trust::kEnvTrustStore) + " is not set");
  }
  return trust::CheckAbsolutePath(trust::kEnvTrustStore, *path);
}

StepResult CheckTrustStore(const OnboardingCheckOptions& options) {
  std::string path;
  if (trust::Verdict where = TrustStorePath(options.environment, &path); !where.ok()) {
    return Fail(kStepTrustStore, where);
  }
  auto fd = trust::OpenSecureFile(path, "trust store", options.secure);
  if (!fd.ok()) return Fail(kStepTrustStore, fd.verdict());
  return Pass(kStepTrustStore,
              path + " is a regular file owned by you with no group or other access");
}

StepResult CheckKey(const OnboardingCheckOptions& options) {
  std::string path;
  if (trust::Verdict where = TrustStorePath(options.environment, &path); !where.ok()) {
    return Fail(kStepKey, where);
  }
  auto store = trust::LoadTrustStore(path, options.secure);
  if (!store.ok()) return Fail(kStepKey, store.verdict());
  return Pass(kStepKey, path + " selects key " + store->selected_key_id + " (" +
                            std::to_string(store->keys.size()) +
                            (store->keys.size() == 1 ? " key" : " keys") + " listed)");
}

std::string SurfaceList(const trust::Manifest& manifest) {
  std::string out;
  for (const auto& surface : manifest.surfaces) {
    if (!out.empty()) out += ", ";
    out += surface.name;
  }
  return out.empty() ? "none" : out;
}

StepResult CheckRelease(const OnboardingCheckOptions& options) {
  auto paths = trust::ReleasePathsFromEnvironment(options.environment);
  if (!paths.ok()) return Fail(kStepRelease, paths.verdict());
  const trust::ReleaseVerifier verifier(*options.clock, options.secure);
  const int64_t now = options.clock->NowMicros();
  auto release = verifier.VerifyAt(*paths, now);
  if (!release.ok()) return Fail(kStepRelease, release.verdict());
  // As admission decides: the log's watermark refuses a release the file lets through
  // (probe CX3), and a watermark that cannot move refuses the release.
  auto recorded = trust::DecideWatermark(options.recorded_watermarks, release->key_id,
                                         release->manifest.sequence, release->manifest_sha256);
  if (!recorded.ok()) {
    return Fail(kStepRelease, trust::Reject(recorded.verdict().reason(),
                                            recorded.verdict().detail() + " (as the log recorded it)"));
  }
  if (trust::Verdict can = trust::ReleaseVerifier::CheckCanAdvance(*release); !can.ok()) {
    return Fail(kStepRelease, can);
  }
  return Pass(kStepRelease,
              "sequence " + std::to_string(release->manifest.sequence) + " signed by key " +
                  release->key_id + ", valid until " +
                  trust::FormatRfc3339UtcMicros(release->manifest.expires_at_micros) + " (" +
                  DescribeDistance(release->manifest.expires_at_micros, now) + "); surfaces: " +
                  SurfaceList(release->manifest));
}

// The surfaces check, plus one surface:NAME result per surface that was checked.
std::vector<StepResult> CheckSurfaces(const OnboardingCheckOptions& options) {
  SurfaceCheckOptions check;
  check.release.paths.manifest = EnvValue(options.environment, trust::kEnvReleaseManifest);
  check.release.paths.signature = EnvValue(options.environment, trust::kEnvReleaseSignature);
  check.release.paths.trust_store = EnvValue(options.environment, trust::kEnvTrustStore);
  check.release.paths.watermark = EnvValue(options.environment, trust::kEnvReleaseWatermark);
  check.release.check_watermark = true;
  check.release.now_micros = options.clock->NowMicros();
  check.release.secure = options.secure;
  check.registry = options.registry;
  check.policy.workspace = EnvValue(options.environment, "LAS_WORKSPACE");
  check.policy.node_executable = options.node_executable;
  check.policy.environment = options.environment;
  check.start_timeout_ms = options.start_timeout_ms;
  check.cancellation = options.cancellation;
  const CheckReport report = RunChecks(check);

  // Per surface, in the report's order (by name): its rows, unless all were skipped
  // (configured but not in the release: not served, not part of the journey).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CheckRow*>> by_surface;
  const CheckRow* release_failure = nullptr;
  for (const CheckRow& row : report.rows) {
    if (row.surface.empty()) {
      if (row.result == CheckResult::kFail && release_failure == nullptr) release_failure = &row;
      continue;
    }
    auto [it, added] = by_surface.try_emplace(row.surface);
    if (added) order.push_back(row.surface);
    it->second.push_back(&row);
  }
  std::vector<StepResult> results;
  const StepResult* first_failure = nullptr;
  std::string passed_names;
  size_t passed = 0;
  for (const std::string& surface : order) {
    const auto& rows = by_surface[surface];
    const CheckRow* failure = nullptr;
    bool all_skipped = true;
    for (const CheckRow* row : rows) {
      if (row->result != CheckResult::kSkip) all_skipped = false;
      if (row->result == CheckResult::kFail && failure == nullptr) failure = row;
    }
    if (all_skipped) continue;
    const std::string step = std::string(kSurfaceStepPrefix) + surface;
    if (failure != nullptr) {
      results.push_back(Fail(step, failure->reason, failure->check + ": " + failure->detail));
    } else {
      results.push_back(Pass(step, rows.back()->detail));
      if (!passed_names.empty()) passed_names += ", ";
      passed_names += surface;
      ++passed;
    }
  }
  for (const StepResult& result : results) {
    if (!result.passed) {
      first_failure = &result;
      break;
    }
  }
  if (release_failure != nullptr) {  // nothing would be admitted, however its surfaces fare
    results.push_back(Fail(kStepSurfaces, release_failure->reason,
                           release_failure->check + ": " + release_failure->detail));
  } else if (first_failure != nullptr) {
    results.push_back(Fail(kStepSurfaces, first_failure->reason,
                           first_failure->step.substr(kSurfaceStepPrefix.size()) + " " +
                               first_failure->detail));
  } else if (passed == 0) {
    results.push_back(Fail(kStepSurfaces, kReasonNoSurfaces,
                           "the release binds no surface the registry configures"));
  } else {
    results.push_back(Pass(kStepSurfaces, std::to_string(passed) +
                                              (passed == 1 ? " surface passes" : " surfaces pass") +
                                              " the launch and tools checks: " + passed_names));
  }
  return results;
}

}  // namespace

StepResult CheckFirstCallStep(const reducers::Onboarding& state) {
  if (state.ok_calls == 0) {
    return Fail(kStepFirstCall, kReasonNoSuccessfulCall,
                "the log holds no successful call to a surface's tool");
  }
  return Pass(kStepFirstCall, "the log holds " + std::to_string(state.ok_calls) +
                                  (state.ok_calls == 1 ? " successful call" : " successful calls") +
                                  " to a surface's tool");
}

namespace {

// The secret key file to sign with, as a hint names it: the first key lives where
// docs/FIRST-RELEASE.md makes it, a rotated one wherever keygen wrote it (probe BA1: the
// hint named the first key's file after a rotation, and the release it signed was refused).
constexpr std::string_view kSelectedSecretKey =
    "SECRET_KEY (the release.key that keygen wrote beside the key the trust store selects, "
    "which las release verify names: ~/.config/las/keys/release.key for the first key)";

std::vector<StepResult> CheckOne(std::string_view step, const OnboardingCheckOptions& options,
                                 const reducers::Onboarding& state) {
  if (step == kStepTrustStore) return {CheckTrustStore(options)};
  if (step == kStepKey) return {CheckKey(options)};
  if (step == kStepRelease) return {CheckRelease(options)};
  if (step == kStepSurfaces) return CheckSurfaces(options);
  if (step == kStepFirstCall) return {CheckFirstCallStep(state)};
  return {};
}

log::EventDraft CompletedEvent(std::string_view step, std::string_view detail, const Actor& actor) {
  log::EventBuilder b;
  auto payload = fb::CreateOnboardingStepCompleted(b.fbb(), b.fbb().CreateString(step),
                                                   b.fbb().CreateString(detail));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

log::EventDraft ResetEventFor(std::string_view step, std::string_view reason,
                              std::string_view detail, const Actor& actor) {
  log::EventBuilder b;
  auto payload = fb::CreateOnboardingStepReset(b.fbb(), b.fbb().CreateString(step),
                                               b.fbb().CreateString(reason),
                                               b.fbb().CreateString(detail));
  return b.Finish(payload, actor.agent_id, actor.session_id);
}

// The first LAS_* variable a detail names ("launch: LAS_WORKSPACE is not set"), else "".
std::string VariableNamedIn(std::string_view detail) {
  const size_t start = detail.find("LAS_");
  if (start == std::string_view::npos) return "";
  size_t end = start;
  while (end < detail.size() && (std::isupper(static_cast<unsigned char>(detail[end])) ||
                                 std::isdigit(static_cast<unsigned char>(detail[end])) ||
                                 detail[end] == '_')) {
    ++end;
  }
  return std::string(detail.substr(start, end - start));
}

// For a launch refused for its variable ("launch: LAS_WORKSPACE is not set"): its export,
// the fix (probe FP3: the generic advice did not name it); else "".
std::string ExportFor(std::string_view reason, std::string_view detail) {
  if (reason != "not-configured" && reason != "not-absolute") return "";
  const std::string variable = VariableNamedIn(detail);
  if (variable.empty()) return "";
  return "export " + variable + "=/an/absolute/path, then: las onboarding check surfaces";
}

// A more precise instruction for some failures.
std::string NextFor(const OnboardingStepInfo& info, std::string_view reason,
                    std::string_view detail) {
  if (info.name == kStepTrustStore || info.name == kStepKey) {
    if (reason == "file-permissions" || reason == "file-owner" || reason == "file-access-denied") {
      return "make the trust store yours with mode 0600: chmod 600 \"$LAS_TRUST_STORE\" "
             "(and chown it to yourself), then: las onboarding check " +
             std::string(info.name);
    }
    if (reason == "not-configured" || reason == "not-absolute") {
      // The trust store step's own advice begins with the export (probe FC5: said twice).
      if (info.name == kStepTrustStore) return std::string(info.next);
      return "export LAS_TRUST_STORE=$HOME/.config/las/trust.json (an absolute path), then: " +
             std::string(info.next);
    }
    // keygen refuses to extend such a store: what is there must go (or be named directly).
    if (reason == "file-symlink" || reason == "file-not-regular") {
      return "point LAS_TRUST_STORE at a regular file, not a link or anything else (export "
             "LAS_TRUST_STORE=\"$(readlink -f \"$LAS_TRUST_STORE\")\" if it links to your "
             "store), then: las onboarding check " + std::string(info.name);
    }
    if (reason == "trust-store-invalid" || reason == "file-too-large") {
      return "the trust store is not one Las can read: move it away (mv \"$LAS_TRUST_STORE\" "
             "\"$LAS_TRUST_STORE.bad\"), then: " + std::string(info.next);
    }
  }
  if (info.name == kStepRelease) {
    // The detail names the variable ("LAS_TRUST_STORE is not set"): its export is the fix,
    // not the list of every release variable (probe FI4).
    if ((reason == "not-configured" || reason == "not-absolute") && detail.starts_with("LAS_")) {
      return "export " + VariableNamedIn(detail) + "=/an/absolute/path (docs/FIRST-RELEASE.md, "
             "step 1), then: las onboarding check release";
    }
    if (reason == "expired") {
      return "sign again with a new expiry: las release sign --secret-key " +
             std::string(kSelectedSecretKey) + " --bump --expires-in 30d, then: las onboarding "
             "check release";
    }
    if (reason == "rollback" || reason == "conflict") {
      // --bump adds one to the manifest's sequence, which may still be at or below the
      // watermark; the number must clear the watermark itself.
      // The log's watermark outlives the file's (a deleted or restored file): the higher
      // one decides, and each verb shows only one of them (probe DO3).
      return "sign again with a sequence above the key's watermark, the higher of the file's "
             "(las release verify) and the log's (las inspect watermarks): las release sign "
             "--secret-key " + std::string(kSelectedSecretKey) +
             " --sequence N, then: las onboarding check release";
    }
    if (reason == "io-error") {
      return "the release files must be readable and the watermark's directory must exist "
             "and be writable by you (las onboarding check release names the path): mkdir -p "
             "\"$(dirname \"$LAS_RELEASE_WATERMARK\")\", then: las onboarding check release";
    }
    if (reason == "file-permissions" || reason == "file-owner" || reason == "file-access-denied") {
      return "make the watermark yours with mode 0600: chmod 600 \"$LAS_RELEASE_WATERMARK\" "
             "(and chown it to yourself), then: las onboarding check release";
    }
    if (reason == "file-symlink" || reason == "file-not-regular") {
      return "point the release variable that las onboarding check release names at a "
             "regular file, not a link or anything else (export "
             "LAS_RELEASE_WATERMARK=\"$(readlink -f \"$LAS_RELEASE_WATERMARK\")\" if it "
             "links to your watermark), then: las onboarding check release";
    }
  }
  if (info.name == kStepSurfaces) {
    if (std::string fix = ExportFor(reason, detail); !fix.empty()) return fix;
  }
  if (info.name == kStepSurfaces && reason == kReasonNoSurfaces) {
    return "the release binds no surface the registry configures (las check lists each as "
           "not-in-registry): draft it under a configured name (docs/REGISTRY.md), or give "
           "las serve and las check a --registry FILE that configures it, then: las onboarding "
           "check surfaces";
  }
  return std::string(info.next);
}

JourneyRow RowFor(std::string step, const reducers::Onboarding& state) {
  JourneyRow row;
  row.step = std::move(step);
  row.status = "pending";
  auto it = state.steps.find(row.step);
  if (it == state.steps.end()) return row;
  const reducers::OnboardingStep& s = it->second;
  row.by = s.by;
  row.sequence = s.sequence;
  row.detail = s.detail;
  row.reason = s.reason;
  if (s.done) {
    row.status = "done";
  } else if (!s.reason.empty() && s.reason != kReasonOperatorReset) {
    row.status = "failed";
  }
  return row;
}

nlohmann::ordered_json RowJson(const JourneyRow& row) {
  return {{"step", row.step},
          {"title", row.title},
          {"status", row.status},
          {"reason", row.reason},
          {"detail", row.detail},
          {"by", row.by.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.by)},
          {"sequence", row.sequence},
          {"next", row.next}};
}

}  // namespace

const std::vector<OnboardingStepInfo>& OnboardingSteps() {
  static const std::vector<OnboardingStepInfo> steps = {
      {kStepTrustStore, "the trust store is present and safe (LAS_TRUST_STORE)",
       "export LAS_TRUST_STORE=$HOME/.config/las/trust.json unless it already names an "
       "absolute path, create the trust store with a key: las release keygen --out-dir "
       "~/.config/las/keys --trust-store \"$LAS_TRUST_STORE\" (the file is created yours, mode "
       "0600), then: las onboarding check trust-store"},
      {kStepKey, "the trust store selects a release key",
       "add and select a key: las release keygen --out-dir ~/.config/las/keys --trust-store "
       "\"$LAS_TRUST_STORE\", then: las onboarding check key"},
      {kStepRelease, "the release verifies (signature, key, expiry, watermark)",
       "set LAS_RELEASE_MANIFEST, LAS_RELEASE_SIGNATURE, LAS_RELEASE_WATERMARK (absolute) and "
       "LAS_WORKSPACE, draft and sign: las release draft --surface NAME -- COMMAND ARGS..., "
       "las release sign --secret-key ~/.config/las/keys/release.key --sequence N (1 for a "
       "new key, else above its watermark: the sequence draft's next line gives); check "
       "with las release verify, then: las onboarding check release (docs/FIRST-RELEASE.md)"},
      {kStepSurfaces, "every surface of the release passes its launch and tools checks",
       "run las onboarding check surfaces (it runs the check and records the step when every "
       "surface passes); if las check names a FAIL row, fix it first (re-draft and sign with "
       "--bump after a change)"},
      {kStepFirstCall, "a first call to a surface's tool succeeded",
       "start las serve from your MCP client and call one surface__tool (las list shows them); "
       "the step completes by itself, or run: las onboarding check first-call"},
  };
  return steps;
}

const OnboardingStepInfo* FindOnboardingStep(std::string_view name) {
  for (const auto& step : OnboardingSteps()) {
    if (step.name == name) return &step;
  }
  return nullptr;
}

std::string OnboardingStepNames() {
  std::string out;
  for (const auto& step : OnboardingSteps()) {
    if (!out.empty()) out += ", ";
    out += step.name;
  }
  return out;
}

std::vector<StepResult> CheckOnboardingSteps(std::string_view step,
                                             const OnboardingCheckOptions& options,
                                             const reducers::Onboarding& state) {
  if (!step.empty()) return CheckOne(step, options, state);
  std::vector<StepResult> all;
  for (const auto& info : OnboardingSteps()) {
    for (auto& result : CheckOne(info.name, options, state)) all.push_back(std::move(result));
  }
  return all;
}

std::vector<log::EventDraft> CheckEvents(const std::vector<StepResult>& results,
                                         const Actor& actor) {
  std::vector<log::EventDraft> drafts;
  drafts.reserve(results.size());
  for (const StepResult& result : results) {
    drafts.push_back(result.passed
                         ? CompletedEvent(result.step, result.detail, actor)
                         : ResetEventFor(result.step, result.reason, result.detail, actor));
  }
  return drafts;
}

log::EventDraft MarkEvent(std::string_view step, const Actor& actor) {
  return CompletedEvent(step, kDetailMarked, actor);
}

log::EventDraft ResetEvent(std::string_view step, const Actor& actor) {
  return ResetEventFor(step, kReasonOperatorReset, "", actor);
}

namespace {

// A check's result as the operator channel receives it from the CLI: any peer of that
// channel could record a row no check made, or megabytes of detail (probe CD3).
Status CheckResultRefusal(const StepResult& result) {
  constexpr size_t kMaxReasonBytes = 256;
  constexpr size_t kMaxDetailBytes = 16 * 1024;
  const std::string_view step = result.step;
  const bool known =
      FindOnboardingStep(step) != nullptr ||
      (step.starts_with(kSurfaceStepPrefix) &&
       trust::IsValidSurfaceName(step.substr(kSurfaceStepPrefix.size())));
  if (!known) {
    return InvalidArgument("a check's result names no step (the steps are " +
                           OnboardingStepNames() + ", and surface:NAME)");
  }
  if (result.reason.size() > kMaxReasonBytes || result.detail.size() > kMaxDetailBytes) {
    return InvalidArgument("a check's result has a reason over 256 bytes or a detail over 16 KiB");
  }
  if (!IsPrintableText(result.reason)) {
    return InvalidArgument("a check's result has a reason with control or invisible characters");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<log::EventDraft>> PlanOnboardingChange(std::string_view action,
                                                          std::string_view step,
                                                          const std::vector<StepResult>& results,
                                                          const Actor& actor) {
  if (action == "check") {
    std::vector<StepResult> recorded = results;
    for (StepResult& result : recorded) {
      if (Status refused = CheckResultRefusal(result); !refused.ok()) return refused;
      // A detail names paths and a child's words: kept, but as it may be shown (probe CH4).
      if (!IsPrintableText(result.detail)) result.detail = EscapeForTerminal(result.detail);
    }
    return CheckEvents(recorded, actor);
  }
  if (action != "mark" && action != "reset") {
    return InvalidArgument("an onboarding change is mark, reset or check");
  }
  if (FindOnboardingStep(step) == nullptr) {
    return InvalidArgument("unknown step \"" + std::string(step) + "\"; the steps are " +
                           OnboardingStepNames());
  }
  std::vector<log::EventDraft> drafts;
  drafts.push_back(action == "mark" ? MarkEvent(step, actor) : ResetEvent(step, actor));
  return drafts;
}

JourneyView ViewJourney(const reducers::Onboarding& state) {
  JourneyView view;
  for (const auto& info : OnboardingSteps()) {
    JourneyRow row = RowFor(std::string(info.name), state);
    row.title = std::string(info.title);
    if (row.status != "done") {
      row.next = NextFor(info, row.reason, row.detail);
      if (view.current.empty()) {
        view.current = row.step;
        view.next = row.next;
      }
    }
    view.steps.push_back(std::move(row));
  }
  for (auto it = state.steps.lower_bound(kSurfaceStepPrefix);
       it != state.steps.end() && it->first.starts_with(kSurfaceStepPrefix); ++it) {
    JourneyRow row = RowFor(it->first, state);
    if (row.status != "done") {
      row.next = ExportFor(row.reason, row.detail);  // a surface's row as the step's (FS7)
      if (row.next.empty()) {
        row.next = "run las check " + it->first.substr(kSurfaceStepPrefix.size()) +
                   " and fix what it names, then: las onboarding check surfaces";
      }
    }
    view.surfaces.push_back(std::move(row));
  }
  return view;
}

std::string JourneyJson(const JourneyView& view, std::string_view action,
                        uint64_t as_of_sequence, const std::vector<StepResult>* checked) {
  using Json = nlohmann::ordered_json;
  Json steps = Json::array();
  for (const auto& row : view.steps) steps.push_back(RowJson(row));
  Json surfaces = Json::array();
  for (const auto& row : view.surfaces) surfaces.push_back(RowJson(row));
  Json out = {{"schema_version", kOnboardingJsonSchemaVersion},
              {"action", action},
              {"as_of_sequence", as_of_sequence},
              {"complete", view.complete()},
              {"current", view.complete() ? Json(nullptr) : Json(view.current)},
              {"next", view.complete() ? Json(nullptr) : Json(view.next)},
              {"steps", std::move(steps)},
              {"surfaces", std::move(surfaces)}};
  if (checked != nullptr) {
    Json results = Json::array();
    for (const auto& result : *checked) {
      results.push_back({{"step", result.step},
                         {"result", result.passed ? "ok" : "fail"},
                         {"reason", result.reason},
                         {"detail", result.detail}});
    }
    out["checked"] = std::move(results);
  }
  return DumpJson(out);
}

}  // namespace las::tools
