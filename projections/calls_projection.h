// "calls": the call summary (reducers/call_summary.h) — counts, the calls still open, and
// the running digest of the whole call ledger. It does not hold one record per call ever
// made, so the server's memory, snapshot and restart do not grow with history; the
// per-call ledger (reducers/call_ledger.h) is folded from the log by `las inspect calls`
// and `las replay --surface` when they need it.
//
// Canonical JSON: {"completed":N,"denied":N,"ledger_hash":"<hex>","open":{"<call id>":
// {"agent_id","requested_sequence","session_id","surface","tool"}},"requested":N}.
#pragma once

#include <optional>
#include <string>

#include "projections/projection.h"
#include "reducers/call_summary.h"

namespace las::projections {

class CallsProjection final : public Projection {
 public:
  std::string_view name() const override { return "calls"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(summary_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;

  const reducers::CallSummary& summary() const { return summary_; }

 private:
  reducers::CallSummary summary_;
};

}  // namespace las::projections
