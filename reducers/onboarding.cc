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
      step.detail.clear();
      step.reason = Str(p->reason());
      ++step.resets;
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
