// "sessions": the MCP sessions still open, and how many closed (reducers/sessions.h).
#pragma once

#include "projections/projection.h"
#include "reducers/sessions.h"

namespace las::projections {

class SessionsProjection final : public Projection {
 public:
  std::string_view name() const override { return "sessions"; }
  void Apply(uint64_t sequence, const log::Hash& /*chain_hash*/,
             const fb::Envelope& event) override {
    reducers::Apply(sessions_, sequence, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::Sessions& sessions() const { return sessions_; }

 private:
  reducers::Sessions sessions_;
};

}  // namespace las::projections
