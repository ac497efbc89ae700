// "onboarding": the first-use journey's progress (reducers/onboarding.h). The journey
// itself — which steps exist, their order, what to do next — is tools/onboarding_journey.h;
// this is only what the log says about each step.
#pragma once

#include "projections/projection.h"
#include "reducers/onboarding.h"

namespace las::projections {

class OnboardingProjection final : public Projection {
 public:
  std::string_view name() const override { return "onboarding"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(state_, sequence, event);
  }
  // {"ok_calls":N,"open_calls":{call id: "surface__tool"},
  //  "steps":{name:{"by","completions","detail","done","reason","resets","sequence",
  //                 "time_micros"}}}
  void WriteCanonical(CanonicalWriter& out) const override;
  // Snapshot state (projections/state_codec.h): ok_calls, open calls, steps, in map order.
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;

  const reducers::Onboarding& state() const { return state_; }

 private:
  reducers::Onboarding state_;
};

}  // namespace las::projections
