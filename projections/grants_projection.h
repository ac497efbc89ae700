// "grants": grants, their delegation links and revocations, and the "always allow" rules
// (reducers/grants.h), with the queries the grant guard and the CLI ask.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "projections/projection.h"
#include "reducers/grants.h"

namespace las::projections {

// Why a call is allowed: the grant or the rule that covers it.
struct Allowance {
  enum class Kind { kGrant, kRule } kind = Kind::kGrant;
  std::string id;
};

class GrantsProjection final : public Projection {
 public:
  std::string_view name() const override { return "grants"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(grants_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;

  // Does `agent_id` hold (surface, raw tool name, definition digest)? The covering grant
  // (first by id) wins over a rule; nullopt when neither covers it exactly.
  std::optional<Allowance> Allows(std::string_view agent_id, std::string_view surface,
                                  std::string_view tool,
                                  std::string_view definition_sha256) const;
  bool HoldsRoot(std::string_view agent_id) const { return reducers::HoldsRoot(grants_, agent_id); }
  const reducers::Grants& grants() const { return grants_; }

 private:
  reducers::Grants grants_;
};

}  // namespace las::projections
