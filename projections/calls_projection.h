// "calls": the call ledger (reducers/call_ledger.h) with its queries.
#pragma once

#include <optional>

#include "projections/projection.h"
#include "reducers/call_ledger.h"

namespace las::projections {

class CallsProjection final : public Projection {
 public:
  std::string_view name() const override { return "calls"; }
  void Apply(uint64_t sequence, const fb::Envelope& event) override {
    reducers::Apply(ledger_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;

  // "What happened to call X": nullopt if the log never saw it.
  std::optional<reducers::CallRecord> Find(const std::string& call_id) const;
  const reducers::CallLedger& ledger() const { return ledger_; }

 private:
  reducers::CallLedger ledger_;
};

}  // namespace las::projections
