// The mailbox reducer: messages between agents, folded from MessageSent, MessageRead,
// MessageCompleted and MessageDeferred.
//
// A message belongs to its recipient: Read/Completed/Deferred events count only when
// their envelope's agent is the recipient (others are skipped and counted). A message's
// state at a time `now`:
//   completed                       once completed (final);
//   deferred                        while now < deferred_until;
//   read                            once read (reading clears a deferral);
//   unread                          otherwise — also after a deferral ran out (deferring
//                                   marks it unread again, so it comes back on its own).
// Sender and times come from the envelopes (agent_id, time_micros). A message keeps its
// body's size, not the body: that stays in the MessageSent event, where a reader fetches
// it (Coordination::MessageBody), so memory does not grow with the bytes sent. The
// event's chain hash is kept, so that a read-back finds that event and no other.
//
// Pure: no I/O, no clock (the query takes `now` from its caller). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log/envelope.h"

namespace las::reducers {

struct MailMessage {
  std::string message_id;
  std::string from_agent_id;
  std::string to_agent_id;
  std::string subject;
  uint64_t body_bytes = 0;       // the body (canonical JSON) stays in the MessageSent event
  uint64_t sent_sequence = 0;    // that event
  log::Hash sent_hash{};         // its chain hash, which the body's read-back must find
  int64_t sent_micros = 0;
  bool read = false;
  int64_t read_micros = 0;
  bool completed = false;
  int64_t completed_micros = 0;
  int64_t deferred_until_micros = 0;  // 0: not deferred
};

// One recipient's messages by sent sequence, the completed ones apart: a listing of the
// others never passes over them. The messages are by_id's (its nodes never move).
struct RecipientMail {
  std::map<uint64_t, const MailMessage*> open;
  std::map<uint64_t, const MailMessage*> completed;
  // How many of `open` each sender sent (no entry: none), for the share one sender may
  // hold of a mailbox (tools/coordination.h).
  std::map<std::string, uint64_t, std::less<>> open_by_sender;
};

struct Mailboxes {
  Mailboxes() = default;
  // by_recipient points into by_id: a copy would point into the original.
  Mailboxes(const Mailboxes&) = delete;
  Mailboxes& operator=(const Mailboxes&) = delete;
  Mailboxes(Mailboxes&&) = default;
  Mailboxes& operator=(Mailboxes&&) = default;

  std::map<std::string, MailMessage, std::less<>> by_id;
  std::map<std::string, RecipientMail, std::less<>> by_recipient;
  uint64_t skipped = 0;  // events about unknown messages, or not by the recipient
};
// Files `message` (already in by_id) under its recipient: what a restore does per message.
void FileMessage(Mailboxes& mailboxes, const MailMessage& message);

void Apply(Mailboxes& mailboxes, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event);

enum class MailState { kUnread = 0, kRead = 1, kDeferred = 2, kCompleted = 3 };
MailState StateAt(const MailMessage& message, int64_t now_micros);
std::string_view MailStateName(MailState state);

// One page of `agent_id`'s mailbox at `now`: unread first, then read, then deferred
// (then completed, when asked for), each group in the order sent. `after` is the `next`
// of the previous page ("" for the first; callers refuse text that is not IsMailCursor);
// `limit` below 1 counts as 1. State changes between pages may move a message across
// the cursor (it is then seen twice or not at all on that pass). A page passes over at
// most kMaxMailScanned messages of other states: past that it ends early, fewer than
// `limit` (even none), with a `next` where it stopped, so that no page costs the whole
// mailbox (probe EQ1).
inline constexpr size_t kMaxMailScanned = 10'000;
struct MailPage {
  std::vector<const MailMessage*> messages;
  std::optional<std::string> next;  // set when more follow
  // `after` names no message of this mailbox (a cursor of another agent's, or made up):
  // nothing listed. Told apart from no message of another agent's, never.
  bool unknown_cursor = false;
};
// The `next` of a page whose last message is `message` in `state`: the state and the
// message's id, never its log sequence (probe IH2: "0:220" counted the whole log's events
// between an agent's own messages).
std::string MailCursor(MailState state, const MailMessage& message);
// Whether `text` is spelt as MailCursor spells one (a state digit, a colon, an id).
bool IsMailCursor(std::string_view text);
MailPage ListMail(const Mailboxes& mailboxes, std::string_view agent_id, int64_t now_micros,
                  std::string_view after, size_t limit, bool include_completed);

}  // namespace las::reducers
