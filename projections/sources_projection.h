// "sources": which sources are enabled or disabled (reducers/sources.h).
#pragma once

#include "projections/projection.h"
#include "reducers/sources.h"

namespace las::projections {

class SourcesProjection final : public Projection {
 public:
  std::string_view name() const override { return "sources"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(toggles_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::SourceToggles& toggles() const { return toggles_; }

 private:
  reducers::SourceToggles toggles_;
};

}  // namespace las::projections
