// LoopAppender: how the server's loop appends to its log — group commit by loop turn, the
// writes on the loop's own thread.
//
// Append() queues a batch; the first one of a turn posts one flush to the loop, which runs
// after the handlers already queued there (the other requests read in the same turn). The
// flush writes everything queued as one EventLog batch (EventLog::AppendInPlace), folds the
// stored events into the live projections without reading them back
// (LiveProjections::FoldStored), and calls each member's `done` with its own range, in
// order, on the loop — a kDeferred member at once, a kSynced member once its events are on
// disk. The fsync a flush with kSynced members needs is made in one of two ways:
//   - inline, on the loop, when at most one call is open (OpenCall/CloseCall), no
//     sync is in flight and SyncOffLoopAlways was not asked for: a lone call then costs one write and one fsync and no thread
//     hand-off (a futex wake-up and a context switch each way, 20–40 µs apiece on a small
//     VM, were most of Las's own latency per call);
//   - otherwise on the log's background thread (EventLog::AwaitDurableAsync), completed
//     back on the loop: the loop goes on reading, deciding and writing the next calls while
//     the sync runs, and the next sync covers everything written meanwhile.
// The live projections hold a flush's events from its write on, a sync before its
// members are answered; an answer read from them meanwhile waits with AfterDurable, so a
// power loss in between loses only events no one was told of.
//
// Errors: a failed append or sync fails every member concerned with the log's error (the
// log then refuses every later append). The first such failure is kept (failure()) and
// passed to the `on_failure` set with OnFailure, once, on the loop. Destroying the
// appender writes what is still queued (events decided are not dropped) without calling
// their `done`; a sync still in flight then completes without calling anything.
//
// Threading: loop thread only; `done` runs on the loop, never inside Append().
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "base/result.h"
#include "log/event_log.h"

namespace boost::asio {
class io_context;
}

namespace las::tools {

class LiveProjections;

class LoopAppender {
 public:
  using Done = std::function<void(Result<log::AppendedRange>)>;

  // `live` may be null (nothing to fold). Both must outlive the appender.
  LoopAppender(boost::asio::io_context& io, log::EventLog& log, LiveProjections* live);
  ~LoopAppender();
  LoopAppender(const LoopAppender&) = delete;
  LoopAppender& operator=(const LoopAppender&) = delete;

  // Queues `drafts` for this turn's flush. An invalid batch (see EventLog::Append) fails
  // alone, on the loop, without holding up the others.
  void Append(std::vector<log::EventDraft> drafts, log::Durability durability, Done done);

  // Writes (and folds) what is queued now instead of at the end of the turn: for a decision
  // that must see, and be logged after, everything decided before it — an operator change
  // made on this loop without the appender (tools/operator_channel.h; probe DL1: a revoke
  // written ahead of a call's ToolCallRequested decided before it).
  void WriteQueued();

  // The log's first failure seen here (ok while there was none), and who hears of it.
  const Status& failure() const { return failure_; }
  void OnFailure(std::function<void(const Status&)> on_failure) {
    on_failure_ = std::move(on_failure);
  }
  // Keeps the first failure of the log itself (not a malformed batch) and reports it. Also
  // for a failure met by an append made on this loop without the appender (the operator
  // channel's synchronous append, a federation record): the server must end all the same.
  void NoteFailure(const Status& status);

  // The last event that what is decided now can reflect: the live projections' sequence (the
  // log's head without them). Written, not necessarily on disk yet.
  uint64_t visible_sequence() const;
  // Calls `then` once every event up to `sequence` is on disk: at once (inside this call)
  // when it already is, else on the loop after a WAL sync made off it; with the log's
  // failure if it failed. An answer that reveals what the projections hold waits on it, so
  // no one learns of an event a power loss could still remove (probe BT1).
  void AfterDurable(uint64_t sequence, std::function<void(Status)> then);

  // Everything an answer decided now may reflect: the events written (visible_sequence())
  // and those queued for this turn's flush — decided by an earlier call of the same turn,
  // which the tools' in-memory overlays show before the fold (tools/coordination.h: a
  // message being completed, a write being made; probe CM1).
  struct Horizon {
    uint64_t visible = 0;
    uint64_t flush = 0;  // the flush that will write what is queued now; 0: none queued
  };
  Horizon horizon() const;
  // Calls `then` once every event within `horizon` is on disk, as AfterDurable does; a
  // queued flush is waited for to be written first (its failure fails `then`).
  void AfterDurable(Horizon horizon, std::function<void(Status)> then);

  // The loop this appender runs on (where work done elsewhere is posted back).
  boost::asio::io_context& io() const { return io_; }

  // Calls a client has sent and not yet been answered, over every session: how the
  // appender tells a lone call (sync inline) from concurrent ones (sync off the loop).
  void OpenCall() { ++open_calls_; }
  void CloseCall() { --open_calls_; }
  // Every sync off the loop, a lone call's too: a timer on the loop (a call timeout) must
  // be able to fire while a disk stalls a sync. Costs a lone call the two thread hand-offs
  // that the inline sync saves.
  void SyncOffLoopAlways() { sync_off_loop_always_ = true; }

 private:
  struct Queued {
    size_t count = 0;
    log::Durability durability = log::Durability::kDeferred;
    Done done;
  };
  void Flush();
  // After flush `id` was written up to `last` (or failed): runs those waiting for it.
  void Written(uint64_t id, const Result<uint64_t>& last);
  // After the write of a flush: answers its members, the synced ones once durable.
  void Complete(Result<log::AppendedRange> range, std::vector<Queued> queued, bool durable);
  boost::asio::io_context& io_;
  log::EventLog& log_;
  LiveProjections* live_;
  std::vector<log::EventDraft> drafts_;  // every queued batch, in order
  std::vector<Queued> queued_;
  size_t open_calls_ = 0;
  bool sync_off_loop_always_ = false;
  size_t syncs_in_flight_ = 0;  // flushes awaiting AwaitDurableAsync
  uint64_t next_flush_ = 1;     // the id of the flush that writes what is queued
  // The last event of each flush written whose sync may still be out (pruned once durable),
  // and who waits for a flush not yet written.
  std::map<uint64_t, uint64_t> flush_last_;
  std::map<uint64_t, std::vector<std::function<void(Status)>>> flush_waiters_;
  Status failure_;
  std::function<void(const Status&)> on_failure_;
  // Shared with the posted flush, which must not touch a destroyed appender.
  std::shared_ptr<LoopAppender*> self_;
};

}  // namespace las::tools
