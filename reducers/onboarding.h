// The onboarding reducer: the first-use journey's progress, folded from the log.
//
// OnboardingStepCompleted{step, detail} marks a step done (detail "marked" when the
// operator marked it by hand); OnboardingStepReset{step, reason, detail} marks it to be done
// again (a re-check found it no longer holds, or the operator reset it) and keeps the reason
// code and what the check found. A server's admission completes steps too, while they are
// not done: a ReleaseAccepted "trust-store", "key" and "release" (the release verified
// under the trust store's selected key), a SurfaceAdmitted that surface's "surface:NAME" row (its
// launch and tools checks passed). Nothing a server records resets a step; only checks
// and the operator do. The "first-call" step is also completed by the ledger itself: the first
// ToolCallCompleted with outcome Ok for a call whose ToolCallRequested named a child
// surface (not Las's own "las") while the step is not done. A reset of "first-call" with
// reason "no-successful-call" folded when the ledger already holds a successful call is
// stale (the check read the ledger before that call's completion was written: calls go on
// while a check runs) and changes nothing. Step names are whatever the
// events say (tools/onboarding_journey.h decides which exist); unknown kinds are skipped.
//
// Pure: no I/O, no clock (times come from the events). Same events, same state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "log/envelope.h"

namespace las::reducers {

// The steps a server's admission completes (ReleaseAccepted proves all three held then).
inline constexpr std::string_view kTrustStoreStep = "trust-store";
inline constexpr std::string_view kKeyStep = "key";
inline constexpr std::string_view kReleaseStep = "release";
// Per surface, the row a SurfaceAdmitted completes: "surface:" + its name.
inline constexpr std::string_view kSurfaceStepPrefix = "surface:";
// The step the call ledger completes.
inline constexpr std::string_view kFirstCallStep = "first-call";
// The first-call check's failure reason.
inline constexpr std::string_view kNoSuccessfulCallReason = "no-successful-call";

struct OnboardingStep {
  bool done = false;
  // Of the latest event: a completion's ("marked": by hand) or a failed check's finding;
  // "" after an operator's reset.
  std::string detail;
  std::string reason;       // reason code of the latest reset; "" after a completion
  std::string by;           // agent id of the latest event about the step; "" = operator
  uint64_t sequence = 0;    // the latest event about the step
  int64_t time_micros = 0;  // that event's time
  uint64_t completions = 0;
  uint64_t resets = 0;
};

struct Onboarding {
  std::map<std::string, OnboardingStep, std::less<>> steps;  // by step name
  // Child calls requested and not completed yet: call id -> "surface__tool".
  std::map<std::string, std::string, std::less<>> open_calls;
  uint64_t ok_calls = 0;  // child calls completed with outcome Ok
};

void Apply(Onboarding& onboarding, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
