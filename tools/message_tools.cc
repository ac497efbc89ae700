// las__message_*: messages between agents (tools/coordination_tools.h).
#include <string>

#include "tools/coordination_events.h"
#include "tools/coordination_tools.h"
#include "tools/exact_json_result.h"
#include "tools/gateway.h"
#include "tools/grant_policy.h"
#include "tools/handle_refs.h"
#include "tools/page_budget.h"
#include "tools/tool_args.h"

namespace las::tools {
namespace {

constexpr size_t kMaxSubjectBytes = 1024;
constexpr uint64_t kMaxDeferSeconds = 366ull * 24 * 3600;

Actor ActorOf(const SessionInfo& session) { return {session.agent_id, session.session_id}; }

void Refuse(const std::function<void(ToolCallReply)>& done, std::string_view code,
            std::string_view message, std::string_view extra = {}) {
  done(ToolCallReply::Result(ErrorJsonResult(code, message, extra)));
}

void Failed(const std::function<void(ToolCallReply)>& done) {
  done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
}

void AnswerAfter(Coordination& c, Coordination::Batch batch, std::string object_json,
                 std::function<void(ToolCallReply)> done) {
  c.Commit(std::move(batch), [done = std::move(done), json = std::move(object_json)](bool ok) {
    if (!ok) return Failed(done);
    done(ToolCallReply::Result(ExactJsonResult(json)));
  });
}

// A message's state as the calls decided so far leave it: the fold's, or the change
// decided and not yet folded (Coordination::PendingMailChange).
Coordination::MailChange StateNow(const Coordination& c, const reducers::MailMessage& m,
                                  int64_t now) {
  Coordination::MailChange view{reducers::StateAt(m, now), m.deferred_until_micros};
  const auto* pending = m.completed ? nullptr : c.PendingMailChange(m.message_id);
  if (pending != nullptr) view = *pending;
  if (view.state == reducers::MailState::kDeferred && now >= view.deferred_until_micros) {
    view.state = reducers::MailState::kUnread;  // as StateAt reads a deferral that ran out
  }
  return view;
}

// The summary every listing shows.
JsonObjectText Summary(const reducers::MailMessage& m, const Coordination::MailChange& view) {
  JsonObjectText out;
  out.String("message_id", m.message_id)
      .String("from_agent_id", m.from_agent_id)
      .String("subject", m.subject)
      .Int("sent_micros", m.sent_micros)
      .String("state", reducers::MailStateName(view.state));
  // Only while it holds: a past deferral on a completed or unread-again message read as if
  // the message were still put aside (probe BX3).
  if (view.state == reducers::MailState::kDeferred) {
    out.Int("deferred_until_micros", view.deferred_until_micros);
  }
  return out;
}

// Answers `object_json` once `batch` is durable, and forgets the mailbox change it decided
// (`ticket`) once it is folded or failed.
void AnswerAfterMailChange(Coordination& c, Coordination::Batch batch, std::string object_json,
                           const std::string& message_id, uint64_t ticket,
                           std::function<void(ToolCallReply)> done) {
  AnswerAfter(c, std::move(batch), std::move(object_json),
              [&c, message_id, ticket, done = std::move(done)](ToolCallReply reply) {
                c.EndMailChange(message_id, ticket);
                done(std::move(reply));
              });
}

void Send(Coordination& c, const SessionInfo& session, const std::string& arguments,
          std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  const std::string to = args->String("to").value_or("");
  if (!IsValidAgentId(to)) return Refuse(done, "invalid-agent", std::string("to: ") + kAgentIdRule);
  const std::string subject = args->String("subject").value_or("");
  if (subject.size() > kMaxSubjectBytes) {
    return Refuse(done, "invalid-arguments", "subject is longer than 1024 bytes");
  }
  auto body = args->TakeValue("body");
  if (!body.ok()) return Refuse(done, body.refusal_code, body.refusal_message);
  const std::string body_text = body.value ? reducers::CanonicalText(*body.value) : "null";
  if (body_text.size() > kMaxValueBytes) {
    return Refuse(done, "value-too-large", "the body is larger than 1 MiB of canonical JSON");
  }
  if (const uint64_t limit = c.max_open_messages_per_agent(); limit != 0) {
    // The limit only: how many messages another agent holds is its own business.
    if (c.OpenMessages(to) >= limit) {
      return Refuse(done, "mailbox-full",
                    "the recipient holds as many open messages as it may; it must complete "
                    "some first",
                    ",\"limit\":" + std::to_string(limit));
    }
    // Counts only the caller's own messages, which it knows it sent: without this share one
    // agent sending without end filled a mailbox and locked every other sender out.
    if (const uint64_t share = c.max_open_messages_per_sender();
        c.OpenMessagesFrom(to, session.agent_id) >= share) {
      return Refuse(done, "mailbox-full",
                    "the recipient holds as many of your messages open as one sender may "
                    "(half its bound); it must complete some of yours first",
                    ",\"limit\":" + std::to_string(limit) + ",\"sender_limit\":" +
                        std::to_string(share));
    }
  }
  const std::string id = c.NewMessageId();
  Coordination::Batch batch;
  batch.drafts.push_back(MessageSentEvent(ActorOf(session), id, to, subject, body_text));
  JsonObjectText answer;
  answer.String("message_id", id).String("to_agent_id", to);
  c.BeginSend(to, id, session.agent_id);
  AnswerAfter(c, std::move(batch), answer.Take(),
              [&c, to, id, done = std::move(done)](ToolCallReply reply) {
                c.EndSend(to, id);
                done(std::move(reply));
              });
}

// Room for any `next` a mailbox page writes (reducers::MailCursor: state, colon, message id;
// Las's ids are "msg-" and 32 hex digits, tools/random_id.h).
constexpr std::string_view kLongestCursorJson = "\"3:msg-0123456789abcdef0123456789abcdef\"";

void List(Coordination& c, const SessionInfo& session, const std::string& arguments,
          std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  const uint64_t limit_arg = args->Uint("limit").value_or(kMaxPageItems);
  const size_t limit = limit_arg == 0 ? 1 : static_cast<size_t>(std::min<uint64_t>(limit_arg, kMaxPageItems));
  const std::string after = args->String("after").value_or("");
  if (!after.empty() && !reducers::IsMailCursor(after)) {
    return Refuse(done, "invalid-arguments", "after is not a `next` from las__message_list");
  }
  if (!c.CatchUpForRead().ok()) return Failed(done);
  const int64_t now = c.NowMicros();
  const bool include_completed = args->Bool("include_completed", false);
  // A change decided earlier (a call sent with this one) shows as read, complete and defer
  // see it (probes CM2, EU1): a completed message is listed completed, or left out without
  // include_completed — for which the page reads as many more as could be left out, so
  // that it still holds `limit` messages when there are (probe CN7); a read or deferred one
  // is listed so. A message keeps its place in the order, which the cursor follows, until
  // the fold moves it.
  const size_t extra = include_completed ? 0 : c.completing_count();
  const reducers::MailPage page = reducers::ListMail(c.mailboxes(), session.agent_id, now, after,
                                                     limit + extra, include_completed);
  if (page.unknown_cursor) {
    return Refuse(done, "invalid-arguments", "after is not a `next` from las__message_list");
  }
  std::string messages = "[";
  PageBudget budget;
  bool truncated = false;
  size_t taken = 0;
  std::optional<std::string> next = page.next;
  // The `next` after page.messages[i]: where the following page starts.
  auto cursor_after = [&](size_t i) {
    return reducers::MailCursor(reducers::StateAt(*page.messages[i], now), *page.messages[i]);
  };
  for (size_t i = 0; i < page.messages.size(); ++i) {
    const auto* message = page.messages[i];
    if (taken == limit) {
      next = cursor_after(i - 1);
      break;
    }
    const Coordination::MailChange view = StateNow(c, *message, now);
    if (view.state == reducers::MailState::kCompleted && !include_completed) continue;
    std::string item = Summary(*message, view).Take();
    if (!budget.TryTake(item, kLongestCursorJson)) {
      truncated = true;
      next = cursor_after(i - 1);
      break;
    }
    if (taken++ != 0) messages.push_back(',');
    messages += item;
  }
  messages.push_back(']');
  JsonObjectText answer;
  answer.Raw("messages", messages);
  if (next) answer.String("next", *next); else answer.Raw("next", "null");
  answer.Bool("truncated", truncated);
  done(ToolCallReply::Result(ExactJsonResult(answer.Take())));
}

// After catching up with the log: the caller's own message named by the arguments, or
// nullptr after answering (failed to catch up, or refused: not found).
const reducers::MailMessage* CaughtUpOwnMessage(Coordination& c, const SessionInfo& session,
                                                const ToolArgs& args,
                                                const std::function<void(ToolCallReply)>& done) {
  if (!c.CatchUpForRead().ok()) {
    Failed(done);
    return nullptr;
  }
  const std::string id = args.String("message_id").value_or("");
  const auto& by_id = c.mailboxes().by_id;
  auto it = by_id.find(id);
  if (it == by_id.end() || it->second.to_agent_id != session.agent_id) {
    Refuse(done, "message-not-found", "no such message in this agent's mailbox");
    return nullptr;
  }
  return &it->second;
}

void Read(Coordination& c, const SessionInfo& session, const std::string& arguments,
          std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  const reducers::MailMessage* m = CaughtUpOwnMessage(c, session, *args, done);
  if (m == nullptr) return;
  const Coordination::MailChange view = StateNow(c, *m, c.NowMicros());
  const bool marks_read =
      view.state == reducers::MailState::kUnread || view.state == reducers::MailState::kDeferred;
  Coordination::Batch batch;
  // The state after this read: reading marks the message read and ends a deferral.
  JsonObjectText answer = Summary(*m, marks_read ? Coordination::MailChange{} : view);
  answer.String("to_agent_id", m->to_agent_id);
  Result<std::string> body = c.MessageBody(*m);
  if (!body.ok()) return done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
  if (body->size() <= kInlineValueBytes) {
    answer.Raw("body", *body);
  } else {
    answer.Raw("body_handle", c.HandleRef(ActorOf(session), *body, batch));
  }
  // The body is handed out: the trail records it, also for a message completed before it
  // was ever read, whose state stays completed (probe BN4: the body went out unrecorded).
  if (marks_read || !m->read) batch.drafts.push_back(MessageReadEvent(ActorOf(session), m->message_id));
  if (!marks_read) return AnswerAfter(c, std::move(batch), answer.Take(), std::move(done));
  const uint64_t ticket = c.BeginMailChange(m->message_id, {});
  AnswerAfterMailChange(c, std::move(batch), answer.Take(), m->message_id, ticket,
                        std::move(done));
}

void Complete(Coordination& c, const SessionInfo& session, const std::string& arguments,
              std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  const reducers::MailMessage* m = CaughtUpOwnMessage(c, session, *args, done);
  if (m == nullptr) return;
  Coordination::Batch batch;
  JsonObjectText answer;
  answer.String("message_id", m->message_id).String("state", "completed");
  if (StateNow(c, *m, c.NowMicros()).state == reducers::MailState::kCompleted) {
    return AnswerAfter(c, std::move(batch), answer.Take(), std::move(done));
  }
  batch.drafts.push_back(MessageCompletedEvent(ActorOf(session), m->message_id));
  const uint64_t ticket =
      c.BeginMailChange(m->message_id, {reducers::MailState::kCompleted, 0});
  AnswerAfterMailChange(c, std::move(batch), answer.Take(), m->message_id, ticket,
                        std::move(done));
}

void Defer(Coordination& c, const SessionInfo& session, const std::string& arguments,
           std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  const auto seconds = args->Uint("seconds");
  if (!seconds || *seconds == 0 || *seconds > kMaxDeferSeconds) {
    return Refuse(done, "invalid-arguments", "seconds must be between 1 and 31622400");
  }
  const reducers::MailMessage* m = CaughtUpOwnMessage(c, session, *args, done);
  if (m == nullptr) return;
  const int64_t now = c.NowMicros();
  if (StateNow(c, *m, now).state == reducers::MailState::kCompleted) {
    return Refuse(done, "message-completed", "the message is completed");
  }
  const int64_t until = now + static_cast<int64_t>(*seconds) * 1'000'000;
  Coordination::Batch batch;
  batch.drafts.push_back(MessageDeferredEvent(ActorOf(session), m->message_id, until));
  JsonObjectText answer;
  answer.String("message_id", m->message_id)
      .String("state", "deferred")
      .Int("deferred_until_micros", until);
  const uint64_t ticket =
      c.BeginMailChange(m->message_id, {reducers::MailState::kDeferred, until});
  AnswerAfterMailChange(c, std::move(batch), answer.Take(), m->message_id, ticket,
                        std::move(done));
}

template <typename F>
BuiltinHandler Bind(std::shared_ptr<Coordination> c, F f) {
  return [c = std::move(c), f](const SessionInfo& session, const std::string& arguments,
                               std::function<void(ToolCallReply)> done) {
    f(*c, session, arguments, std::move(done));
  };
}

constexpr std::string_view kIdSchema =
    R"({"type":"object","properties":{"message_id":{"type":"string","minLength":1}},)"
    R"("required":["message_id"],"additionalProperties":false})";

}  // namespace

void AddMessageTools(BuiltinTools& tools, std::shared_ptr<Coordination> c) {
  tools.Add("message_send",
            "Send a message to another agent: `to` (agent id), optional `subject`, and a "
            "JSON `body` (or `body_json`, JSON text). Answers the message id once durably "
            "logged.",
            R"({"type":"object","properties":{"to":{"type":"string","minLength":1},)"
            R"("subject":{"type":"string"},"body":{},"body_json":{"type":"string"}},)"
            R"("required":["to"],"additionalProperties":false})",
            Bind(c, Send));
  tools.Add("message_list",
            "This agent's mailbox: unread first, then read, then deferred, each oldest "
            "first; completed only with include_completed. Paged: at most `limit` (<= 100); "
            "pass `next` as `after` for the next page, until `next` is null (a page may hold "
            "fewer, even none, before the end).",
            R"({"type":"object","properties":{"after":{"type":"string"},)"
            R"("limit":{"type":"integer","minimum":1,"maximum":100},)"
            R"("include_completed":{"type":"boolean"}},"additionalProperties":false})",
            Bind(c, List));
  tools.Add("message_read",
            "Read one message of this agent's mailbox (its body, or a handle for bodies over "
            "16 KiB) and mark it read.",
            std::string(kIdSchema), Bind(c, Read));
  tools.Add("message_complete", "Mark one message of this agent's mailbox completed.",
            std::string(kIdSchema), Bind(c, Complete));
  tools.Add("message_defer",
            "Put one message aside for `seconds`; it comes back as unread afterwards.",
            R"({"type":"object","properties":{"message_id":{"type":"string","minLength":1},)"
            R"("seconds":{"type":"integer","minimum":1,"maximum":31622400}},)"
            R"("required":["message_id","seconds"],"additionalProperties":false})",
            Bind(c, Defer));
}

}  // namespace las::tools
