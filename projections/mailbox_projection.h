// "mailbox": every message between agents and its state (reducers/mailbox.h).
//
// Canonical JSON: {"messages":{ID:{"body_bytes","completed","completed_micros",
// "deferred_until_micros","from_agent_id","read","read_micros","sent_micros",
// "sent_sequence","subject","to_agent_id"}},"skipped":N}. Time-dependent states
// (deferred or not) are not part of it: they depend on the reader's clock, not the log.
#pragma once

#include "projections/projection.h"
#include "reducers/mailbox.h"

namespace las::projections {

class MailboxProjection final : public Projection {
 public:
  std::string_view name() const override { return "mailbox"; }
  void Apply(uint64_t sequence, const log::Hash& chain_hash,
             const fb::Envelope& event) override {
    reducers::Apply(mailboxes_, sequence, chain_hash, event);
  }
  void WriteCanonical(CanonicalWriter& out) const override;
  bool Save(std::string& out) const override;
  bool Restore(std::string_view state) override;
  const reducers::Mailboxes& mailboxes() const { return mailboxes_; }

 private:
  reducers::Mailboxes mailboxes_;
};

}  // namespace las::projections
