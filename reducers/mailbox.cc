#include "reducers/mailbox.h"

#include <algorithm>
#include <charconv>
#include <tuple>

#include "reducers/strings.h"

namespace las::reducers {
namespace {

// The message `event` names, if its actor is the recipient; else counts a skip.
MailMessage* Owned(Mailboxes& mailboxes, const fb::Envelope& event,
                   const flatbuffers::String* message_id) {
  auto it = mailboxes.by_id.find(View(message_id));
  if (it == mailboxes.by_id.end() || it->second.to_agent_id != View(event.agent_id())) {
    ++mailboxes.skipped;
    return nullptr;
  }
  return &it->second;
}

// The (state, sent_sequence) a cursor names; state -1 when the text is not a cursor.
std::pair<int, uint64_t> ParseCursor(std::string_view text) {
  int state = -1;
  uint64_t sequence = 0;
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return {-1, 0};
  auto a = std::from_chars(text.data(), text.data() + colon, state);
  auto b = std::from_chars(text.data() + colon + 1, text.data() + text.size(), sequence);
  if (a.ec != std::errc() || a.ptr != text.data() + colon || b.ec != std::errc() ||
      b.ptr != text.data() + text.size() || state < static_cast<int>(MailState::kUnread) ||
      state > static_cast<int>(MailState::kCompleted)) {
    return {-1, 0};
  }
  return {state, sequence};
}

}  // namespace

// Cursor text: "<state>:<sent_sequence>".
std::string MailCursor(MailState state, uint64_t sent_sequence) {
  return std::to_string(static_cast<int>(state)) + ":" + std::to_string(sent_sequence);
}

bool IsMailCursor(std::string_view text) {
  const auto [state, sequence] = ParseCursor(text);
  // Only the spelling MailCursor gives ("00:0" names the same place, but no page gave it).
  return state >= 0 && MailCursor(static_cast<MailState>(state), sequence) == text;
}

void Apply(Mailboxes& mailboxes, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::MessageSent: {
      const auto* p = event.payload_as_MessageSent();
      const std::string id = Str(p->message_id());
      if (id.empty() || mailboxes.by_id.count(id) != 0) {
        ++mailboxes.skipped;
        return;
      }
      MailMessage m;
      m.message_id = id;
      m.from_agent_id = Str(event.agent_id());
      m.to_agent_id = Str(p->to_agent_id());
      m.subject = Str(p->subject());
      m.body_bytes = p->body() != nullptr ? p->body()->size() : 0;
      m.sent_sequence = sequence;
      m.sent_hash = chain_hash;
      m.sent_micros = event.time_micros();
      mailboxes.by_recipient[m.to_agent_id].push_back(id);
      mailboxes.by_id.emplace(id, std::move(m));
      return;
    }
    case fb::EventPayload::MessageRead:
      if (auto* m = Owned(mailboxes, event, event.payload_as_MessageRead()->message_id())) {
        m->read = true;
        m->read_micros = event.time_micros();
        m->deferred_until_micros = 0;
      }
      return;
    case fb::EventPayload::MessageCompleted:
      if (auto* m = Owned(mailboxes, event, event.payload_as_MessageCompleted()->message_id())) {
        m->completed = true;
        m->completed_micros = event.time_micros();
      }
      return;
    case fb::EventPayload::MessageDeferred: {
      const auto* p = event.payload_as_MessageDeferred();
      if (auto* m = Owned(mailboxes, event, p->message_id())) {
        m->read = false;
        m->deferred_until_micros = p->until_micros();
      }
      return;
    }
    default:
      return;
  }
}

MailState StateAt(const MailMessage& message, int64_t now_micros) {
  if (message.completed) return MailState::kCompleted;
  if (message.deferred_until_micros != 0 && now_micros < message.deferred_until_micros) {
    return MailState::kDeferred;
  }
  return message.read ? MailState::kRead : MailState::kUnread;
}

std::string_view MailStateName(MailState state) {
  switch (state) {
    case MailState::kUnread: return "unread";
    case MailState::kRead: return "read";
    case MailState::kDeferred: return "deferred";
    case MailState::kCompleted: return "completed";
  }
  return "unread";
}

MailPage ListMail(const Mailboxes& mailboxes, std::string_view agent_id, int64_t now_micros,
                  std::string_view after, size_t limit, bool include_completed) {
  MailPage page;
  if (limit == 0) limit = 1;
  auto box = mailboxes.by_recipient.find(agent_id);
  if (box == mailboxes.by_recipient.end()) return page;
  // The recipient's ids are in the order sent, so each state's group is read in place
  // from the cursor on and the walk stops once the page is full: a page costs what it
  // passes over, not a sort of the whole mailbox (probe EQ1: 1.5 s a page, on the loop,
  // at 500,000 messages).
  const std::vector<std::string>& ids = box->second;
  const auto message = [&](size_t i) -> const MailMessage& {
    return mailboxes.by_id.find(ids[i])->second;
  };
  const auto [after_state, after_sequence] = after.empty() ? std::pair<int, uint64_t>{-1, 0}
                                                           : ParseCursor(after);
  const int last_group = static_cast<int>(include_completed ? MailState::kCompleted
                                                            : MailState::kDeferred);
  const MailMessage* last = nullptr;
  for (int group = std::max(after_state, 0); group <= last_group; ++group) {
    size_t i = 0;
    if (group == after_state) {  // the first sent after the cursor's message
      size_t high = ids.size();
      while (i < high) {
        const size_t mid = i + (high - i) / 2;
        if (message(mid).sent_sequence <= after_sequence) {
          i = mid + 1;
        } else {
          high = mid;
        }
      }
    }
    for (; i < ids.size(); ++i) {
      const MailMessage& m = message(i);
      if (static_cast<int>(StateAt(m, now_micros)) != group) continue;
      if (page.messages.size() == limit) {
        page.next = MailCursor(StateAt(*last, now_micros), last->sent_sequence);
        return page;
      }
      page.messages.push_back(&m);
      last = &m;
    }
  }
  return page;
}

}  // namespace las::reducers
