// "state": private state per agent and the shared blackboard (reducers/state_store.h).
//
// Canonical JSON: {"blackboard":{KEY:KEYREC},"private":{AGENT:{KEY:KEYREC}},"skipped":N}
// with KEYREC = {"author_agent_id","reducer","sequences","time_micros","value",
// "value_sha256","version"}: the current version whole ("value" its canonical JSON text as
// a string) and "sequences" the StateWritten event of every version in order; an older
// version commits to its author, time, reducer and value through that event, which the
// log's chain covers (reducers/state_store.h).
#pragma once

#include "projections/projection.h"
#include "reducers/state_store.h"

namespace las::projections {

class StateProjection final : public Projection {
 public:
  std::string_view name() const override { return "state"; }
  void Apply(uint64_t sequence, const log::Hash& chain_hash,
             const fb::Envelope& event) override {
    reducers::Apply(store_, sequence, chain_hash, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::StateStore& store() const { return store_; }

 private:
  reducers::StateStore store_;
};

}  // namespace las::projections
