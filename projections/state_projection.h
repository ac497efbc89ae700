// "state": private state per agent and the shared blackboard (reducers/state_store.h).
//
// Canonical JSON: {"blackboard":{KEY:KEYREC},"private":{AGENT:{KEY:KEYREC}},"skipped":N}
// with KEYREC = {"versions":{V20:{"author_agent_id","reducer","sequence","time_micros",
// "value","value_sha256"}}}, V20 the version as 20 zero-padded digits (so byte order is
// numeric order) and "value" the value's canonical JSON text as a string — present on the
// current (highest) version only; older versions commit to theirs through value_sha256
// (the values themselves stay in the log, reducers/state_store.h).
#pragma once

#include "projections/projection.h"
#include "reducers/state_store.h"

namespace las::projections {

class StateProjection final : public Projection {
 public:
  std::string_view name() const override { return "state"; }
  void Apply(uint64_t sequence, const fb::Envelope& event) override {
    reducers::Apply(store_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::StateStore& store() const { return store_; }

 private:
  reducers::StateStore store_;
};

}  // namespace las::projections
