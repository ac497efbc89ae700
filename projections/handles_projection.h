// "handles": immutable large values and their owners (reducers/handles.h).
//
// Canonical JSON: {"handles":{ID:{"content_sha256","created_micros","media_type",
// "owner_agent_id","sequence","size"}},"skipped":N}. The content is represented by its
// recorded SHA-256 (the hash chain covers the bytes).
#pragma once

#include "projections/projection.h"
#include "reducers/handles.h"

namespace las::projections {

class HandlesProjection final : public Projection {
 public:
  std::string_view name() const override { return "handles"; }
  void Apply(uint64_t sequence, const log::Hash& chain_hash,
             const fb::Envelope& event) override {
    reducers::Apply(handles_, sequence, chain_hash, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::Handles& handles() const { return handles_; }

 private:
  reducers::Handles handles_;
};

}  // namespace las::projections
