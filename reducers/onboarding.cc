#include "reducers/onboarding.h"

#include "reducers/strings.h"

namespace las::reducers {
namespace {

OnboardingStep& Touch(Onboarding& onboarding, std::string_view name, uint64_t sequence,
                      const fb::Envelope& event) {
  auto it = onboarding.steps.find(name);
  if (it == onboarding.steps.end()) it = onboarding.steps.emplace(std::string(name), OnboardingStep{}).first;
  OnboardingStep& step = it->second;
  step.by = Str(event.agent_id());
  step.sequence = sequence;
  step.time_micros = event.time_micros();
  return step;
}

void Complete(OnboardingStep& step, std::string detail) {
  step.done = true;
  step.detail = std::move(detail);
  step.reason.clear();
  ++step.completions;
}

// Completes `name` unless it is done already (what a server's admission shows).
void CompleteIfNotDone(Onboarding& onboarding, std::string_view name, uint64_t sequence,
                       const fb::Envelope& event, const std::string& detail) {
  auto it = onboarding.steps.find(name);
  if (it != onboarding.steps.end() && it->second.done) return;
  Complete(Touch(onboarding, name, sequence, event), detail);
}

}  // namespace

void Apply(Onboarding& onboarding, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::OnboardingStepCompleted: {
      const auto* p = event.payload_as_OnboardingStepCompleted();
      Complete(Touch(onboarding, View(p->step()), sequence, event), Str(p->detail()));
      break;
    }
    case fb::EventPayload::OnboardingStepReset: {
      const auto* p = event.payload_as_OnboardingStepReset();
      if (View(p->step()) == kFirstCallStep && View(p->reason()) == kNoSuccessfulCallReason &&
          onboarding.ok_calls > 0) {
        break;  // stale: see the header
      }
      OnboardingStep& step = Touch(onboarding, View(p->step()), sequence, event);
      step.done = false;
      step.detail = Str(p->detail());
      step.reason = Str(p->reason());
      ++step.resets;
      break;
    }
    case fb::EventPayload::ReleaseAccepted: {
      const auto* p = event.payload_as_ReleaseAccepted();
      const std::string detail = "a server accepted release " + std::to_string(p->release_sequence()) +
                                 " signed by key " + Str(p->key_id());
      for (std::string_view step : {kTrustStoreStep, kKeyStep, kReleaseStep}) {
        CompleteIfNotDone(onboarding, step, sequence, event, detail);
      }
      break;
    }
    case fb::EventPayload::SurfaceAdmitted: {
      const auto* p = event.payload_as_SurfaceAdmitted();
      CompleteIfNotDone(onboarding, std::string(kSurfaceStepPrefix) + Str(p->surface()), sequence, event,
                        "a server admitted it (release " + std::to_string(p->release_sequence()) + ")");
      break;
    }
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = event.payload_as_ToolCallRequested();
      const std::string_view surface = View(p->surface());
      if (surface.empty() || surface == "las") break;
      onboarding.open_calls[Str(p->call_id())] = std::string(surface) + "__" + Str(p->tool());
      break;
    }
    case fb::EventPayload::ToolCallCompleted: {
      const auto* p = event.payload_as_ToolCallCompleted();
      auto it = onboarding.open_calls.find(View(p->call_id()));
      if (it == onboarding.open_calls.end()) break;
      if (p->outcome() == fb::CallOutcome::Ok) {
        ++onboarding.ok_calls;
        auto step = onboarding.steps.find(kFirstCallStep);
        if (step == onboarding.steps.end() || !step->second.done) {
          Complete(Touch(onboarding, kFirstCallStep, sequence, event),
                   "call " + it->first + " to " + it->second + " succeeded");
        }
      }
      onboarding.open_calls.erase(it);
      break;
    }
    default:
      break;
  }
}

}  // namespace las::reducers
