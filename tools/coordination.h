// Coordination: what the state, message and handle tools share on the server's loop —
// the live projections, the writes decided but not yet folded, durable commits that
// answer on the loop, handle references, the injected clock and ids.
//
// Every mutation is decided on the loop against the newest state: CatchUp() folds what
// the log holds, and the pending-writes overlay adds writes queued but not yet folded, so
// two CAS on one key decided in one loop turn cannot both win. Commit() appends with
// Durability::kSynced through the loop's appender (tools/loop_appender.h: the writes of
// one turn share one fsync, and are folded before `then`) and runs `then` on the loop once
// the events are on disk (or the append failed); the tools answer only then.
//
// Threading: loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "log/event.h"
#include "reducers/handles.h"
#include "reducers/mailbox.h"
#include "reducers/state_store.h"
#include "tools/decision_events.h"
#include "tools/las_tools.h"
#include "tools/recent_contents.h"
#include "transport/mcp_client.h"

namespace las::tools {

// How many bytes of handle contents read back are kept for the next span's read: room for
// four of the largest (a child's answer line), so that agents reading large handles at once
// do not evict each other's span by span (probe DZ1: two 16 MiB handles read in turn
// re-read and re-verified their events at every span, and every session waited).
inline constexpr size_t kRecentHandleBytes = 4 * transport::kMaxChildLineBytes;

struct CoordinationOptions {
  const WallClock* clock = &SystemWallClock();  // message deferral and listing
  std::function<std::string()> new_message_id;   // default RandomId("msg-")
  // The most state one agent may hold (reducers::HeldBytes: the keys, private or
  // blackboard, whose current version it wrote); a write that would leave it holding more,
  // and more than before, is refused. 0 = no bound.
  uint64_t max_state_bytes_per_agent = 0;
  // The most messages one agent's mailbox may hold open (not completed: unread, read or
  // deferred); a message_send to a recipient holding that many is refused mailbox-full
  // until it completes some. One sender may hold at most half of them (rounded up:
  // max_open_messages_per_sender()), so that one agent sending without end cannot lock the
  // others out of a mailbox. 0 = no bound.
  uint64_t max_open_messages_per_agent = 0;
};

class Coordination {
 public:
  Coordination(const LasToolContext& context, CoordinationOptions options);

  // Folds the log into the live projections (LiveProjections::CatchUp).
  Status CatchUp();
  const reducers::StateStore& state() const;
  const reducers::Mailboxes& mailboxes() const;
  const reducers::Handles& handles() const;
  // The content of `handle`, read from its HandleCreated event in the log (the projection
  // keeps none), or from the last few handles read (tools/recent_contents.h: a handle read
  // span by span is read from the log once). kCorruption when that event is not the
  // handle's or its size differs; errors from reading the log.
  Result<std::shared_ptr<const std::string>> HandleContent(
      const reducers::HandleRecord& handle) const;
  // The body of `message`, read from its MessageSent event (the projection keeps only its
  // size). kCorruption when that event is not this message's; log read errors.
  Result<std::string> MessageBody(const reducers::MailMessage& message) const;
  // Version `at` of `key` in the blackboard or `owner`'s private state, whole, read from
  // its StateWritten event (the projection keeps only the current version whole; use it
  // when it is the one). kCorruption when that event is not this version's write; log
  // read errors.
  Result<reducers::StateVersion> StateVersionAt(bool blackboard, std::string_view owner,
                                                std::string_view key,
                                                reducers::VersionAt at) const;

  // Writes decided but not yet folded, per slot (scope, owner, key): the newest one.
  struct PendingWrite {
    bool blackboard = false;
    std::string owner;
    std::string key;
    uint64_t version = 0;
    std::string value;
    std::string author_agent_id;
    size_t in_flight = 0;  // writes of the slot not yet folded
  };
  static std::string SlotOf(bool blackboard, std::string_view owner, std::string_view key);
  const PendingWrite* Pending(const std::string& slot) const;
  // `write` (in_flight ignored) is the slot's newest until EndWrite of the last one.
  void BeginWrite(const std::string& slot, PendingWrite write);
  void EndWrite(const std::string& slot);

  // What `agent_id` holds (reducers::HeldBytes) once the pending writes are folded too.
  uint64_t HeldBytes(std::string_view agent_id) const;
  uint64_t max_state_bytes_per_agent() const { return options_.max_state_bytes_per_agent; }

  // Events to append together; handle_ids names the handles their HandleCreated create.
  // awaited_handles names handles the batch refers to that another call's append is
  // still taking to disk.
  struct Batch {
    std::vector<log::EventDraft> drafts;
    std::vector<std::string> handle_ids;
    std::vector<std::string> awaited_handles;
    void Add(Batch other);
  };

  // A handle reference for `content` owned by `actor`: adds a HandleCreated draft to
  // `batch` unless the handle exists, is being created (then the batch awaits it), or is
  // in `batch` already. `content_sha256`, when given, is the content's SHA-256 in hex as the
  // log recorded it (a state value's): a read of a large value then does not hash it again
  // (probe EQ2: every read of a 900 KiB value hashed it on the loop).
  std::string HandleRef(const Actor& actor, std::string_view content, Batch& batch,
                        std::string_view content_sha256 = {});

  // Appends the batch (synced) and calls `then(ok)` on the loop when durable. With no
  // drafts, calls `then(true)` once every handle it awaits is durable: at once when none.
  void Commit(Batch batch, std::function<void(bool)> then);

  // A mailbox change decided and not yet folded (MessageRead, MessageDeferred or
  // MessageCompleted): a call sent right after it (pipelined) must see it before the fold
  // does (probes CM2, EU1: a listing sent with a deferral showed the message unread).
  struct MailChange {
    reducers::MailState state = reducers::MailState::kRead;  // read, deferred or completed
    int64_t deferred_until_micros = 0;                        // for kDeferred
  };
  // The latest change decided for `message_id` and not yet folded, or nullptr.
  const MailChange* PendingMailChange(std::string_view message_id) const;
  // The messages `agent_id` holds open: the fold's, and those sent to it that the fold has
  // not filed yet (each between BeginSend and EndSend, by its id; a completion not yet
  // folded still counts).
  uint64_t OpenMessages(std::string_view agent_id) const;
  // Those of them that `sender` sent.
  uint64_t OpenMessagesFrom(std::string_view agent_id, std::string_view sender) const;
  void BeginSend(const std::string& to_agent_id, const std::string& message_id,
                 const std::string& sender);
  void EndSend(const std::string& to_agent_id, const std::string& message_id);
  uint64_t max_open_messages_per_agent() const { return options_.max_open_messages_per_agent; }
  // Half the mailbox bound, rounded up; 0 when there is none.
  uint64_t max_open_messages_per_sender() const {
    return options_.max_open_messages_per_agent / 2 + options_.max_open_messages_per_agent % 2;
  }

  // How many of the pending changes are completions.
  size_t completing_count() const { return completing_count_; }
  // Makes `change` the message's pending change — but a pending completion stays: it is
  // final. Returns the ticket EndMailChange takes once the change's event is folded (or
  // failed), which forgets the change unless a later one replaced it.
  uint64_t BeginMailChange(const std::string& message_id, MailChange change);
  void EndMailChange(const std::string& message_id, uint64_t ticket);

  // CatchUp() for a read: first writes and folds what this loop turn has queued (the
  // appender's WriteQueued), so a read decided after a write — the same session's set then
  // get sent together — sees it (probe FB1: it read the version before). Its answer waits,
  // as every builtin's, until what it reflects is on disk. Writes keep CatchUp(): they see
  // queued writes through the pending-writes overlay, and their turn's group commit stays.
  Status CatchUpForRead();

  int64_t NowMicros() const { return options_.clock->NowMicros(); }
  std::string NewMessageId();

 private:
  LasToolContext context_;  // a copy: its members are references that outlive us
  CoordinationOptions options_;
  std::map<std::string, PendingWrite, std::less<>> pending_;
  struct TicketedMailChange {
    MailChange change;
    uint64_t ticket = 0;
  };
  std::map<std::string, TicketedMailChange, std::less<>> mail_changes_;
  uint64_t last_mail_ticket_ = 0;
  size_t completing_count_ = 0;
  // By recipient, the messages sent and not yet answered (id → sender); each counts until
  // the fold has filed it (probe IS1: one folded and not yet answered was counted twice).
  std::map<std::string, std::map<std::string, std::string>, std::less<>> sends_in_flight_;
  mutable RecentContents recent_handles_{kRecentHandleBytes};
};

}  // namespace las::tools
