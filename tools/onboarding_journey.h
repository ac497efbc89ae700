// The first-use journey: its ordered steps, the real check behind each, what to do next,
// and the events that record progress. `las__onboarding` (tools/onboarding_tool.h) and
// `las onboarding` (cli/onboarding_command.cc) are two faces of this one file; the
// progress itself is the "onboarding" projection (reducers/onboarding.h), so both see
// the same state and it survives restart. docs/ONBOARDING.md describes the journey.
//
// Steps, in order (the current step is the first one not done):
//   trust-store  LAS_TRUST_STORE set, absolute, and the file safe (OpenSecureFile: a
//                regular file, not a symlink, yours, no group/other bits)
//   key          the trust store parses and selects a key (LoadTrustStore)
//   release      the release verifies now (ReleaseVerifier::VerifyAt with the injected
//                clock: signature, key, manifest, expiry, watermark); nothing is written
//   surfaces     every surface the release binds and the registry configures passes its
//                launch and tools checks (tools/surface_check.h RunChecks: children are
//                started and stopped); each surface is also recorded as "surface:NAME"
//   first-call   a call to a child surface completed with outcome Ok (the reducer
//                completes this step by itself when the ledger shows one)
//
// Reason codes of a failing check: the trust reasons of docs/RELEASES.md (not-configured,
// not-absolute, file-missing, file-permissions, trust-store-invalid, bad-signature,
// expired, rollback, digest-mismatch, tools-mismatch, ...), the surface check reasons
// (start-failed, list-failed, not-in-registry), and the journey's own: "no-surfaces" (the
// release binds no configured surface), "no-successful-call". A reset by the operator is
// "operator-reset"; a step marked by hand has the detail "marked".
//
// Threading: CheckOnboardingSteps blocks (the surfaces check starts children and waits
// for them); call it off any event loop. Everything else is pure and thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "log/event.h"
#include "reducers/onboarding.h"
#include "tools/check_cancellation.h"
#include "tools/decision_events.h"
#include "tools/registry.h"
#include "trust/environment.h"
#include "trust/secure_file.h"
#include "trust/watermark.h"

namespace las::tools {

inline constexpr std::string_view kStepTrustStore = reducers::kTrustStoreStep;
inline constexpr std::string_view kStepKey = reducers::kKeyStep;
inline constexpr std::string_view kStepRelease = reducers::kReleaseStep;
inline constexpr std::string_view kStepSurfaces = "surfaces";
inline constexpr std::string_view kStepFirstCall = reducers::kFirstCallStep;
inline constexpr std::string_view kSurfaceStepPrefix = reducers::kSurfaceStepPrefix;

inline constexpr std::string_view kReasonOperatorReset = "operator-reset";
inline constexpr std::string_view kReasonNoSuccessfulCall = reducers::kNoSuccessfulCallReason;
inline constexpr std::string_view kDetailMarked = "marked";

inline constexpr int kOnboardingJsonSchemaVersion = 1;

struct OnboardingStepInfo {
  std::string_view name;
  std::string_view title;  // what the step means
  std::string_view next;   // what to do when it is not done: exact commands and variables
};

// The steps, in journey order. Static storage.
const std::vector<OnboardingStepInfo>& OnboardingSteps();
// The step of that name, or nullptr (surface:NAME rows are not steps of their own).
const OnboardingStepInfo* FindOnboardingStep(std::string_view name);
// "trust-store, key, release, surfaces, first-call".
std::string OnboardingStepNames();

// What the checks read. A value type; the clock is borrowed and must outlive the checks.
struct OnboardingCheckOptions {
  trust::Environment environment;  // LAS_TRUST_STORE, LAS_RELEASE_*, LAS_WORKSPACE
  Registry registry = DefaultRegistry();
  std::string node_executable;     // LAS_NODE as the server reads it
  const WallClock* clock = &SystemWallClock();
  trust::SecureFileOptions secure;
  // The log's recorded watermarks (tools/recorded_watermarks.h): the release check refuses
  // what admission on that log would refuse, not only what the watermark file does.
  trust::Watermarks recorded_watermarks;
  int64_t start_timeout_ms = 15'000;  // per child, the surfaces check
  CheckCancellation* cancellation = nullptr;  // optional: ends the surfaces check early
};

// One check's verdict. `reason` is "accepted" when passed.
struct StepResult {
  std::string step;  // a step name, or surface:NAME
  bool passed = false;
  std::string reason;
  std::string detail;  // for operators: paths, key ids, sequences; never a secret
};

// Runs the check of `step`, or of every step in order when `step` is empty (each runs
// even if an earlier one failed). The surfaces check adds one surface:NAME result per
// surface it launched (before its own). `state` is the journey's current progress (the
// first-call check reads it). An unknown step name returns no results.
std::vector<StepResult> CheckOnboardingSteps(std::string_view step,
                                             const OnboardingCheckOptions& options,
                                             const reducers::Onboarding& state);

// The first-call check alone (pure: it reads only `state`).
StepResult CheckFirstCallStep(const reducers::Onboarding& state);

// OnboardingStepCompleted{step, detail} for each passing result and
// OnboardingStepReset{step, reason, detail} for each failing one, in order, by `actor`.
std::vector<log::EventDraft> CheckEvents(const std::vector<StepResult>& results,
                                         const Actor& actor);
// OnboardingStepCompleted{step, "marked"}.
log::EventDraft MarkEvent(std::string_view step, const Actor& actor);
// OnboardingStepReset{step, "operator-reset"}.
log::EventDraft ResetEvent(std::string_view step, const Actor& actor);

// The operator's change (`las onboarding mark|reset|check`), validated, as drafts:
// `action` "mark" or "reset" needs a known `step` (else kInvalidArgument) and gives one
// draft; "check" gives CheckEvents(results) (the checks ran where the operator runs
// them) once each result names a step (or surface:NAME) and carries at most 256 bytes of
// printable reason and 16 KiB of detail (recorded escaped when it holds control or
// invisible characters), else kInvalidArgument; any other action is kInvalidArgument. The
// CLI's direct path and a running server's operator channel (tools/operator_channel.h) both
// use it.
Result<std::vector<log::EventDraft>> PlanOnboardingChange(std::string_view action,
                                                          std::string_view step,
                                                          const std::vector<StepResult>& results,
                                                          const Actor& actor);

// The journey as the operator and the client see it.
struct JourneyRow {
  std::string step;
  std::string title;   // "" for surface:NAME rows
  std::string status;  // "done", "failed" (the latest check failed), "pending"
  std::string reason;  // reason code of the latest reset, "" when done or never checked
  std::string detail;  // of the latest completion
  std::string by;      // agent id of the latest event; "" = the operator (CLI)
  uint64_t sequence = 0;  // that event; 0 = never recorded
  std::string next;    // what to do, when not done
};
struct JourneyView {
  std::vector<JourneyRow> steps;     // journey order
  std::vector<JourneyRow> surfaces;  // surface:NAME rows, by name
  std::string current;               // the first step not done; "" when all are done
  std::string next;                  // what to do for it; "" when all are done
  bool complete() const { return current.empty(); }
};
JourneyView ViewJourney(const reducers::Onboarding& state);

// The JSON document both faces answer with (stable fields; docs/ONBOARDING.md):
// {"schema_version":1,"action":..,"as_of_sequence":N,"complete":bool,
//  "current":step|null,"next":text|null,"steps":[row...],"surfaces":[row...],
//  "checked":[{"step","result":"ok"|"fail","reason","detail"}] (check only)}
// A row: {"step","title","status","reason","detail","by":agent|null,"sequence","next"}.
std::string JourneyJson(const JourneyView& view, std::string_view action,
                        uint64_t as_of_sequence, const std::vector<StepResult>* checked);

}  // namespace las::tools
