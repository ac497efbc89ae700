#include "projections/onboarding_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

void OnboardingProjection::WriteCanonical(CanonicalWriter& out) const {
  // std::map iterates in ascending byte order of the keys: the canonical order.
  out.BeginObject();
  out.Key("ok_calls");
  out.Uint(state_.ok_calls);
  out.Key("open_calls");
  out.BeginObject();
  for (const auto& [call_id, tool] : state_.open_calls) {
    out.Key(call_id);
    out.String(tool);
  }
  out.EndObject();
  out.Key("steps");
  out.BeginObject();
  for (const auto& [name, step] : state_.steps) {
    out.Key(name);
    out.BeginObject();
    out.Key("by");
    out.String(step.by);
    out.Key("completions");
    out.Uint(step.completions);
    out.Key("detail");
    out.String(step.detail);
    out.Key("done");
    out.Bool(step.done);
    out.Key("reason");
    out.String(step.reason);
    out.Key("resets");
    out.Uint(step.resets);
    out.Key("sequence");
    out.Uint(step.sequence);
    out.Key("time_micros");
    out.Int(step.time_micros);
    out.EndObject();
  }
  out.EndObject();
  out.EndObject();
}

bool OnboardingProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(state_.ok_calls);
  w.Uint(state_.open_calls.size());
  for (const auto& [call_id, tool] : state_.open_calls) {
    w.String(call_id);
    w.String(tool);
  }
  w.Uint(state_.steps.size());
  for (const auto& [name, step] : state_.steps) {
    w.String(name);
    w.Bool(step.done);
    w.String(step.detail);
    w.String(step.reason);
    w.String(step.by);
    w.Uint(step.sequence);
    w.Int(step.time_micros);
    w.Uint(step.completions);
    w.Uint(step.resets);
  }
  return true;
}

bool OnboardingProjection::Restore(std::string_view state) {
  StateReader in(state);
  in.Uint(state_.ok_calls);
  uint64_t count = 0;
  in.Uint(count);
  std::string key;
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    std::string tool;
    in.String(key);
    in.String(tool);
    if (in.ok()) state_.open_calls[key] = std::move(tool);
  }
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::OnboardingStep step;
    in.String(key);
    in.Bool(step.done);
    in.String(step.detail);
    in.String(step.reason);
    in.String(step.by);
    in.Uint(step.sequence);
    in.Int(step.time_micros);
    in.Uint(step.completions);
    in.Uint(step.resets);
    if (in.ok()) state_.steps[key] = std::move(step);
  }
  return in.done();
}

}  // namespace las::projections
