#include "projections/mailbox_projection.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "projections/state_codec.h"

namespace las::projections {

void MailboxProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("messages");
  out.BeginObject();
  for (const auto& [id, m] : mailboxes_.by_id) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("body_bytes");
    out.Uint(m.body_bytes);
    out.Key("completed");
    out.Bool(m.completed);
    out.Key("completed_micros");
    out.Int(m.completed_micros);
    out.Key("deferred_until_micros");
    out.Int(m.deferred_until_micros);
    out.Key("from_agent_id");
    out.String(m.from_agent_id);
    out.Key("read");
    out.Bool(m.read);
    out.Key("read_micros");
    out.Int(m.read_micros);
    out.Key("sent_micros");
    out.Int(m.sent_micros);
    out.Key("sent_sequence");
    out.Uint(m.sent_sequence);
    out.Key("subject");
    out.String(m.subject);
    out.Key("to_agent_id");
    out.String(m.to_agent_id);
    out.EndObject();
  }
  out.EndObject();
  out.Key("skipped");
  out.Uint(mailboxes_.skipped);
  out.EndObject();
}

}  // namespace las::projections

namespace las::projections {

bool MailboxProjection::Save(std::string& out) const {
  StateWriter w(&out);
  // by_recipient is rebuilt from the messages (reducers::FileMessage).
  w.Uint(mailboxes_.by_id.size());
  for (const auto& [id, m] : mailboxes_.by_id) {
    w.String(m.message_id);
    w.String(m.from_agent_id);
    w.String(m.to_agent_id);
    w.String(m.subject);
    w.Uint(m.body_bytes);
    w.Uint(m.sent_sequence);
    w.Fixed(m.sent_hash);
    w.Int(m.sent_micros);
    w.Bool(m.read);
    w.Int(m.read_micros);
    w.Bool(m.completed);
    w.Int(m.completed_micros);
    w.Int(m.deferred_until_micros);
  }
  w.Uint(mailboxes_.skipped);
  return true;
}

bool MailboxProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::MailMessage m;
    in.String(m.message_id);
    in.String(m.from_agent_id);
    in.String(m.to_agent_id);
    in.String(m.subject);
    in.Uint(m.body_bytes);
    in.Uint(m.sent_sequence);
    in.Fixed(m.sent_hash);
    in.Int(m.sent_micros);
    in.Bool(m.read);
    in.Int(m.read_micros);
    in.Bool(m.completed);
    in.Int(m.completed_micros);
    in.Int(m.deferred_until_micros);
    if (!in.ok()) break;
    auto [it, inserted] = mailboxes_.by_id.emplace(m.message_id, std::move(m));
    if (inserted) reducers::FileMessage(mailboxes_, it->second);
  }
  in.Uint(mailboxes_.skipped);
  return in.done();
}

}  // namespace las::projections
