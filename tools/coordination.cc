#include "tools/coordination.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <type_traits>

#include "base/note.h"
#include "log/envelope.h"
#include "log/event_log.h"
#include "projections/handles_projection.h"
#include "projections/mailbox_projection.h"
#include "projections/state_projection.h"
#include "tools/coordination_events.h"
#include "tools/handle_refs.h"
#include "tools/handles_in_creation.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/random_id.h"

namespace las::tools {

Coordination::Coordination(const LasToolContext& context, CoordinationOptions options)
    : context_(context), options_(std::move(options)) {}

Status Coordination::CatchUp() { return context_.live.CatchUp(); }

Status Coordination::CatchUpForRead() {
  context_.appender.WriteQueued();
  return CatchUp();
}

const reducers::StateStore& Coordination::state() const {
  return context_.live.Get<projections::StateProjection>("state")->store();
}
const reducers::Mailboxes& Coordination::mailboxes() const {
  return context_.live.Get<projections::MailboxProjection>("mailbox")->mailboxes();
}
const reducers::Handles& Coordination::handles() const {
  return context_.live.Get<projections::HandlesProjection>("handles")->handles();
}

namespace {

// The caller's answer is a generic failure; the operator learns why here, at each read
// refused (one line per client call at most): history that fails verification was met
// after the server's open (which may have restored a snapshot taken past it), and only
// `las replay` would otherwise reveal it. The message is the chain check's own (a
// sequence and what failed), never an event's content.
Status ReportDamage(Status status) {
  if (status.code() == Code::kCorruption) {
    Note("the log fails verification (%s): the history read there is "
         "refused; run `las replay` on the log\n",
         status.message().c_str());
  }
  return status;
}

// What `take` finds in the event at `sequence`, read through a verifying cursor: what a
// record left in the log. `take` answers nullopt when the event is not the one the record
// names (kCorruption, "... is not <what>"). The event must also still have the chain hash
// it had when the record was folded, `folded_hash`: the cursor checks an event against its
// own stored hash only, so an event edited in place with that hash recomputed (the chain
// broken after it, where a server started from a snapshot does not look) would pass.
template <typename Take,
          typename T = typename std::invoke_result_t<Take, const fb::Envelope&>::value_type>
Result<T> ReadBack(log::EventLog& log, uint64_t sequence, const log::Hash& folded_hash,
                   const std::string& what, Take take) {
  auto cursor = log.Read(sequence);
  if (!cursor.ok()) return ReportDamage(cursor.status());
  auto found = (*cursor)->Next();
  if (!found.ok()) return ReportDamage(found.status());
  if (!*found) return NotFound("no event at sequence " + std::to_string(sequence));
  const std::string at = "the event at sequence " + std::to_string(sequence);
  std::optional<T> taken = take(log::EnvelopeOf((*cursor)->current()));
  if (!taken) return ReportDamage(Corruption(at + " is not " + what));
  if ((*cursor)->current().hash != folded_hash) {
    return ReportDamage(Corruption(at + " is not the one folded: its chain hash changed"));
  }
  return std::move(*taken);
}

bool Is(const flatbuffers::String* field, std::string_view expected) {
  return field != nullptr && field->string_view() == expected;
}

}  // namespace

Result<std::shared_ptr<const std::string>> Coordination::HandleContent(
    const reducers::HandleRecord& handle) const {
  if (auto kept = recent_handles_.Find(handle.handle_id, handle.sequence)) return kept;
  auto read = ReadBack(
      context_.log, handle.sequence, handle.event_hash,
      "the HandleCreated of handle " + handle.handle_id,
      [&](const fb::Envelope& event) -> std::optional<std::string> {
        const auto* created = event.payload_as_HandleCreated();
        if (created == nullptr || !Is(created->handle_id(), handle.handle_id) ||
            created->content() == nullptr || created->content()->size() != handle.size) {
          return std::nullopt;
        }
        return std::string(reinterpret_cast<const char*>(created->content()->data()),
                           created->content()->size());
      });
  if (!read.ok()) return read.status();
  auto content = std::make_shared<const std::string>(std::move(*read));
  recent_handles_.Keep(handle.handle_id, handle.sequence, content);
  return content;
}

Result<reducers::StateVersion> Coordination::StateVersionAt(bool blackboard,
                                                            std::string_view owner,
                                                            std::string_view key,
                                                            reducers::VersionAt at) const {
  return ReadBack(
      context_.log, at.sequence, at.hash, "the write of version " + std::to_string(at.version),
      [&](const fb::Envelope& event) -> std::optional<reducers::StateVersion> {
        const auto* written = event.payload_as_StateWritten();
        if (written == nullptr || !Is(written->key(), key) || written->version() != at.version ||
            (written->scope() == fb::StateScope::Blackboard) != blackboard ||
            (!blackboard && !Is(written->owner_agent_id(), owner)) ||
            written->value() == nullptr) {
          return std::nullopt;
        }
        reducers::StateVersion v;
        reducers::ReadVersion(at.sequence, event, v);
        return v;
      });
}

Result<std::string> Coordination::MessageBody(const reducers::MailMessage& message) const {
  return ReadBack(context_.log, message.sent_sequence, message.sent_hash,
                  "the MessageSent of message " + message.message_id,
                  [&](const fb::Envelope& event) -> std::optional<std::string> {
                    const auto* sent = event.payload_as_MessageSent();
                    if (sent == nullptr || !Is(sent->message_id(), message.message_id) ||
                        sent->body() == nullptr || sent->body()->size() != message.body_bytes) {
                      return std::nullopt;
                    }
                    return sent->body()->str();
                  });
}

std::string Coordination::SlotOf(bool blackboard, std::string_view owner, std::string_view key) {
  std::string slot = blackboard ? "b" : "p" + std::to_string(owner.size()) + ":" + std::string(owner);
  slot.push_back('/');
  slot += key;
  return slot;
}

const Coordination::PendingWrite* Coordination::Pending(const std::string& slot) const {
  auto it = pending_.find(slot);
  return it == pending_.end() ? nullptr : &it->second;
}

void Coordination::BeginWrite(const std::string& slot, PendingWrite write) {
  PendingWrite& p = pending_[slot];
  write.in_flight = p.in_flight + 1;
  p = std::move(write);
}

void Coordination::EndWrite(const std::string& slot) {
  auto it = pending_.find(slot);
  if (it != pending_.end() && --it->second.in_flight == 0) pending_.erase(it);
}

uint64_t Coordination::HeldBytes(std::string_view agent_id) const {
  uint64_t held = reducers::HeldBytes(state(), agent_id);
  for (const auto& [slot, write] : pending_) {
    const auto* folded = reducers::FindKey(state(), write.blackboard, write.owner, write.key);
    if (folded != nullptr && folded->current.version >= write.version) continue;
    if (folded != nullptr && folded->current.author_agent_id == agent_id) {
      held -= std::min(held, reducers::HeldBytesOf(write.key, folded->current.value));
    }
    if (write.author_agent_id == agent_id) held += reducers::HeldBytesOf(write.key, write.value);
  }
  return held;
}

void Coordination::Batch::Add(Batch other) {
  // other's first handle_ids.size() drafts are its HandleCreated, in order (HandleRef).
  for (size_t i = 0; i < other.drafts.size(); ++i) {
    if (i < other.handle_ids.size()) {
      if (std::find(handle_ids.begin(), handle_ids.end(), other.handle_ids[i]) !=
          handle_ids.end()) {
        continue;
      }
      handle_ids.push_back(std::move(other.handle_ids[i]));
    }
    drafts.push_back(std::move(other.drafts[i]));
  }
  for (auto& id : other.awaited_handles) awaited_handles.push_back(std::move(id));
}

std::string Coordination::HandleRef(const Actor& actor, std::string_view content, Batch& batch,
                                    std::string_view content_sha256) {
  std::string id = content_sha256.size() == 64 ? HandleIdForDigest(actor.agent_id, content_sha256)
                                               : HandleIdFor(actor.agent_id, content);
  HandlesInCreation& in_creation = context_.handles_in_creation;
  const bool in_batch =
      std::find(batch.handle_ids.begin(), batch.handle_ids.end(), id) != batch.handle_ids.end();
  if (in_creation.Creating(id)) {
    if (!in_batch) batch.awaited_handles.push_back(id);
  } else if (!in_creation.Stored(id) && !in_batch) {
    batch.drafts.push_back(HandleCreatedEvent(actor, id, actor.agent_id, kJsonMediaType, content));
    batch.handle_ids.push_back(id);
  }
  return HandleRefJson(id, kJsonMediaType, content.size());
}

void Coordination::Commit(Batch batch, std::function<void(bool)> then) {
  HandlesInCreation& in_creation = context_.handles_in_creation;
  if (batch.drafts.empty()) {
    // Its answer may name a handle another call's append is taking to disk: it waits for
    // that append. (With drafts of its own, its synced append is later in the WAL and
    // covers those handles too.)
    in_creation.AwaitStored(std::move(batch.awaited_handles), std::move(then));
    return;
  }
  for (auto& id : batch.handle_ids) in_creation.Begin(std::move(id));
  // The appender folds the stored events into the live projections before this runs.
  context_.appender.Append(
      std::move(batch.drafts), log::Durability::kSynced,
      [&in_creation, then = std::move(then)](Result<log::AppendedRange> appended) mutable {
        in_creation.Settled(appended.ok());
        then(appended.ok());
      });
}

const Coordination::MailChange* Coordination::PendingMailChange(
    std::string_view message_id) const {
  const auto it = mail_changes_.find(message_id);
  return it == mail_changes_.end() ? nullptr : &it->second.change;
}

uint64_t Coordination::BeginMailChange(const std::string& message_id, MailChange change) {
  auto [it, fresh] = mail_changes_.try_emplace(message_id);
  const bool completion = change.state == reducers::MailState::kCompleted;
  if (!fresh && it->second.change.state == reducers::MailState::kCompleted) return 0;
  if (completion) ++completing_count_;
  it->second = {change, ++last_mail_ticket_};
  return it->second.ticket;
}

void Coordination::EndMailChange(const std::string& message_id, uint64_t ticket) {
  const auto it = mail_changes_.find(message_id);
  if (it == mail_changes_.end() || it->second.ticket != ticket) return;
  if (it->second.change.state == reducers::MailState::kCompleted) --completing_count_;
  mail_changes_.erase(it);
}

uint64_t Coordination::OpenMessages(std::string_view agent_id) const {
  uint64_t open = 0;
  const auto& recipients = mailboxes().by_recipient;
  if (const auto it = recipients.find(agent_id); it != recipients.end()) open = it->second.open.size();
  if (const auto it = sends_in_flight_.find(agent_id); it != sends_in_flight_.end()) {
    const auto& filed = mailboxes().by_id;
    for (const auto& [id, sender] : it->second) open += filed.count(id) == 0 ? 1 : 0;
  }
  return open;
}

uint64_t Coordination::OpenMessagesFrom(std::string_view agent_id,
                                        std::string_view sender) const {
  uint64_t open = 0;
  const auto& recipients = mailboxes().by_recipient;
  if (const auto it = recipients.find(agent_id); it != recipients.end()) {
    const auto& by_sender = it->second.open_by_sender;
    if (const auto from = by_sender.find(sender); from != by_sender.end()) open = from->second;
  }
  if (const auto it = sends_in_flight_.find(agent_id); it != sends_in_flight_.end()) {
    const auto& filed = mailboxes().by_id;
    for (const auto& [id, from] : it->second) {
      open += from == sender && filed.count(id) == 0 ? 1 : 0;
    }
  }
  return open;
}

void Coordination::BeginSend(const std::string& to_agent_id, const std::string& message_id,
                             const std::string& sender) {
  sends_in_flight_[to_agent_id].emplace(message_id, sender);
}

void Coordination::EndSend(const std::string& to_agent_id, const std::string& message_id) {
  const auto it = sends_in_flight_.find(to_agent_id);
  if (it == sends_in_flight_.end()) return;
  it->second.erase(message_id);
  if (it->second.empty()) sends_in_flight_.erase(it);
}

std::string Coordination::NewMessageId() {
  return options_.new_message_id ? options_.new_message_id() : RandomId("msg-");
}

}  // namespace las::tools
