// "releases": watermarks per trust key and the admission verdict per surface
// (reducers/releases.h).
#pragma once

#include "projections/projection.h"
#include "reducers/releases.h"

namespace las::projections {

class ReleasesProjection final : public Projection {
 public:
  std::string_view name() const override { return "releases"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(releases_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::Releases& releases() const { return releases_; }

 private:
  reducers::Releases releases_;
};

}  // namespace las::projections
