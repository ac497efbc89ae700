// "catalog": the federated catalog as last recorded in the log (reducers/recorded_catalog.h).
#pragma once

#include "projections/projection.h"
#include "reducers/recorded_catalog.h"

namespace las::projections {

class CatalogProjection final : public Projection {
 public:
  std::string_view name() const override { return "catalog"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(catalog_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::RecordedCatalog& catalog() const { return catalog_; }

 private:
  reducers::RecordedCatalog catalog_;
};

}  // namespace las::projections
