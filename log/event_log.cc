#include "log/event_log.h"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <utility>

#include "base/out_of_memory.h"
#include "log/chain_cursor.h"
#include "log/envelope.h"
#include "log/events_generated.h"
#include "log/log_reader.h"
#include "log/rocks_layout.h"
#include "log/rocks_store.h"

namespace las::log {
namespace {

// Wakes one blocked caller without the log's mutex: a caller woken under that mutex would
// at once block on it again, which costs a second sleep and wake per append.
class Wakeup {
 public:
  enum class Reason { kNone, kLead, kDone };

  // The poster holds a reference, so the caller may return and drop its own as soon as it
  // sees the reason.
  static void Post(std::shared_ptr<Wakeup> wakeup, Reason reason) {
    {
      std::lock_guard lock(wakeup->mu_);
      wakeup->reason_ = reason;
    }
    wakeup->cv_.notify_one();
  }
  Reason Await() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return reason_ != Reason::kNone; });
    return std::exchange(reason_, Reason::kNone);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  Reason reason_ = Reason::kNone;
};

// One caller's batch waiting to be committed. Lives on the caller's stack.
struct Request {
  std::vector<EventDraft>* drafts = nullptr;
  size_t bytes = 0;
  Durability durability = Durability::kSynced;
  Result<AppendedRange> result = Status(Code::kIo, "not committed");
  std::shared_ptr<Wakeup> wakeup;  // made by Commit, where running out of memory is an error
};

// A group stops growing at this size so one huge batch cannot stall everyone forever.
constexpr size_t kMaxGroupBytes = 8 << 20;
// A write batch's bytes beyond its events' envelopes: per event its record's tag, family,
// key and lengths and the chain hash stored before the envelope; per batch its header and
// the head record (and the seal's, counted apart).
constexpr size_t kRecordOverheadBytes = 64;
constexpr size_t kBatchOverheadBytes = 256;

Status CheckDraft(const EventDraft& draft) {
  if (!IsUsableEnvelope(draft.envelope.data(), draft.envelope.size())) {
    return InvalidArgument("an event draft is not a valid Envelope with a payload");
  }
  const auto* envelope = fb::GetEnvelope(draft.envelope.data());
  // Envelope derives privately from Table; the fields are checked through the base.
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(envelope);
  if (!table->CheckField(fb::Envelope::VT_SEQUENCE) ||
      !table->CheckField(fb::Envelope::VT_TIME_MICROS) || envelope->prev_hash() == nullptr) {
    return InvalidArgument("an event draft lacks its placeholders (build it with EventBuilder)");
  }
  return Status::Ok();
}

class RocksEventLog final : public EventLog {
 public:
  RocksEventLog(std::unique_ptr<RocksStore> store, const LogOptions& options)
      : store_(std::move(store)),
        clock_(options.clock),
        seal_key_(options.seal_key),
        keep_another_keys_seal_(options.keep_another_keys_seal),
        deferred_sync_interval_(std::chrono::microseconds(options.deferred_sync_micros)),
        snapshot_free_reserve_(options.snapshot_free_reserve_bytes) {
    // Started here, not as members: a second thread that cannot start (a low process or
    // memory limit) throws, and the first, joinable, must be stopped and joined before
    // unwinding destroys it — destroying it running ended the process (probe FJ1).
    writer_ = std::thread([this] { AsyncWriterLoop(); });
    try {
      syncer_ = std::thread([this] { SyncerLoop(); });
    } catch (...) {
      {
        std::lock_guard lock(background_mu_);
        stopping_ = true;
      }
      async_wake_.notify_one();
      writer_.join();
      throw;
    }
  }

  ~RocksEventLog() override {
    {
      std::lock_guard lock(background_mu_);
      stopping_ = true;
    }
    async_wake_.notify_one();
    writer_.join();  // drains queued async appends
    {
      std::lock_guard lock(background_mu_);
      writer_done_ = true;
    }
    background_wake_.notify_one();
    syncer_.join();  // completes their syncs and syncs deferred writes
    if (keeper_.joinable()) {
      {
        std::lock_guard lock(keeper_mu_);
        keeper_stopping_ = true;
      }
      keeper_wake_.notify_one();
      keeper_.join();  // keeps the final head first
    }
  }

  void KeepHead(KeepHeadCallback keep, int64_t every_micros) override {
    keep_head_ = std::move(keep);
    keep_every_ = std::chrono::microseconds(std::max<int64_t>(every_micros, 1));
    keeper_ = std::thread([this] { KeeperLoop(); });
  }

  Status LoadHead() {
    auto checked = store_->CheckHead(seal_key_ ? &*seal_key_ : nullptr);
    if (!checked.ok()) return checked.status();
    head_ = checked->head;
    seal_at_open_ = std::move(checked->seal);
    if (seal_at_open_.state == SealState::kOtherKey && keep_another_keys_seal_) {
      seal_key_.reset();  // write unsealed; the other key's seal stays
    }
    last_time_ = checked->last_time_micros;
    // What recovery found is on disk: RocksDB flushes recovered WAL data to synced files.
    written_sequence_ = durable_sequence_ = head_.sequence;
    return Status::Ok();
  }

  Result<AppendedRange> Append(std::vector<EventDraft> drafts, Durability durability) override {
    return AppendInPlace(drafts, durability);
  }

  Result<AppendedRange> AppendInPlace(std::vector<EventDraft>& drafts,
                                      Durability durability) override {
    LAS_RETURN_IF_ERROR(CheckBatch(drafts));
    return Commit(drafts, durability);
  }

  void AppendAsync(std::vector<EventDraft> drafts, Durability durability,
                   AppendCallback done) override {
    Status valid = CheckBatch(drafts);
    if (!valid.ok()) {
      done(valid);
      return;
    }
    {
      std::lock_guard lock(background_mu_);
      async_queue_.push_back({std::move(drafts), durability, std::move(done)});
    }
    async_wake_.notify_one();
  }

  void AwaitDurableAsync(uint64_t sequence, DurableCallback done) override {
    bool written = false;
    {
      std::lock_guard lock(mu_);
      written = sequence <= written_sequence_;
    }
    if (!written) {  // a sync never reaches it: waiting would sync forever
      done(InvalidArgument("event " + std::to_string(sequence) +
                           " is not written yet; cannot wait for it to be durable"));
      return;
    }
    {
      std::lock_guard lock(background_mu_);
      sync_waiters_.push_back(
          {AppendedRange{sequence, sequence},
           [done = std::move(done)](Result<AppendedRange> synced) { done(synced.status()); }});
    }
    background_wake_.notify_one();
  }

 private:
  struct AsyncAppend {
    std::vector<EventDraft> drafts;
    Durability durability;
    AppendCallback done;
  };
  struct SyncWaiter {
    AppendedRange range;
    AppendCallback done;
  };

  static Status CheckBatch(const std::vector<EventDraft>& drafts) {
    if (drafts.empty()) return InvalidArgument("an append needs at least one event");
    for (const auto& draft : drafts) LAS_RETURN_IF_ERROR(CheckDraft(draft));
    return Status::Ok();
  }

  // The group-commit core, in two stages so that writing and syncing overlap:
  //   1. write: the caller at the front of the queue takes every batch queued behind it,
  //      sequences and hashes them and writes them in one RocksDB batch without fsync;
  //      then it hands the write stage to the next caller at once;
  //   2. sync: a synced group then waits until a WAL sync that began after its write has
  //      finished, running that sync itself if none is in flight. While one sync runs,
  //      later groups are written, and the next sync covers all of them.
  Result<AppendedRange> Commit(std::vector<EventDraft>& drafts, Durability durability) {
    Request request;
    request.drafts = &drafts;
    request.durability = durability;
    for (const auto& draft : drafts) request.bytes += draft.envelope.size();

    std::unique_lock lock(mu_, std::defer_lock);
    try {
      request.wakeup = std::make_shared<Wakeup>();
      lock.lock();
      queue_.push_back(&request);
    } catch (const std::bad_alloc&) {
      return OutOfMemory("appending to the log");  // nothing queued
    }
    if (writing_ || queue_.front() != &request) {
      lock.unlock();
      // Posted kLead by the writer before us once it is done, or kDone by a leader that
      // took this batch into its group.
      if (request.wakeup->Await() == Wakeup::Reason::kDone) return std::move(request.result);
      lock.lock();
    }

    std::vector<Request*> group;
    try {
      group.reserve(queue_.size());  // so that taking requests from the queue never throws
    } catch (const std::bad_alloc&) {
      // Nothing taken: this request leaves the queue (its front: it leads), the next leads.
      queue_.pop_front();
      Request* next = queue_.empty() ? nullptr : queue_.front();
      lock.unlock();
      if (next != nullptr) Wakeup::Post(next->wakeup, Wakeup::Reason::kLead);
      return OutOfMemory("appending to the log");
    }
    size_t group_bytes = 0;
    while (!queue_.empty() &&
           (group.empty() || group_bytes + queue_.front()->bytes <= kMaxGroupBytes)) {
      group_bytes += queue_.front()->bytes;
      group.push_back(queue_.front());
      queue_.pop_front();
    }
    const bool sync = std::any_of(group.begin(), group.end(), [](const Request* r) {
      return r->durability == Durability::kSynced;
    });
    const Head start = head_;
    Head end = start;
    int64_t time = last_time_;
    Status status = failure_;
    writing_ = true;
    lock.unlock();

    if (status.ok()) status = WriteGroupOrAbandon(group, end, time);

    lock.lock();
    writing_ = false;
    if (status.ok()) {
      head_ = end;
      last_time_ = time;
      written_sequence_ = end.sequence;
      stats_.events += end.sequence - start.sequence;
      stats_.appends += group.size();
      if (!sync) ++stats_.deferred_groups;
    } else {
      Fail(status);
    }
    // The next leader is chosen under mu_ (no newcomer can lead while the queue is not
    // empty) but woken after it is released.
    Request* next_leader = queue_.empty() ? nullptr : queue_.front();
    if (next_leader != nullptr) {
      lock.unlock();
      Wakeup::Post(next_leader->wakeup, Wakeup::Reason::kLead);
      lock.lock();
    }

    if (status.ok() && sync) status = AwaitDurable(lock, end.sequence);
    if (status.ok() && !sync) NoteUnsynced();
    lock.unlock();
    for (Request* member : group) {
      if (member == &request) continue;
      if (!status.ok()) member->result = status;
      Wakeup::Post(member->wakeup, Wakeup::Reason::kDone);  // member may return now
    }
    if (!status.ok()) request.result = status;
    return std::move(request.result);
  }

  // Waits (mu_ held) until everything up to `sequence` is on disk.
  Status AwaitDurable(std::unique_lock<std::mutex>& lock, uint64_t sequence) {
    while (durable_sequence_ < sequence) {
      if (!failure_.ok()) return failure_;
      if (syncing_) {
        synced_.wait(lock);
      } else {
        SyncLocked(lock);
        ++stats_.synced_groups;
      }
    }
    return Status::Ok();
  }

  // One WAL fsync covering everything written so far. Called and returns with mu_ held.
  void SyncLocked(std::unique_lock<std::mutex>& lock) {
    syncing_ = true;
    const uint64_t target = written_sequence_;
    lock.unlock();
    Status status;
    try {
      status = store_->WriteResult(store_->db().SyncWAL(), "syncing the log");
    } catch (const std::bad_alloc&) {
      store_->Abandon();  // RocksDB's state after that is not to be trusted (probe FR4)
      status = OutOfMemory("syncing the log");
    }
    if (status.ok()) status = store_->CheckInPlace();  // synced into a directory still there
    lock.lock();
    syncing_ = false;
    const bool first_durable = status.ok() && durable_sequence_ == 0 && target > 0;
    if (status.ok()) {
      durable_sequence_ = std::max(durable_sequence_, target);
      if (durable_sequence_ == written_sequence_) ClearUnsynced();
    } else {
      Fail(status);
    }
    // Woken outside mu_, or each waiter would wake only to block on it.
    lock.unlock();
    synced_.notify_all();
    if (first_durable) {
      // A new log's first head is kept now, not up to an interval later: a server killed in
      // its first second left none, and the next start said one had been lost (probe FG3).
      {
        std::lock_guard keeper_lock(keeper_mu_);
        first_keep_due_ = true;
      }
      keeper_wake_.notify_one();
    }
    lock.lock();
  }

  void Fail(const Status& status) {
    if (failure_.ok()) {
      failure_ = IoError("the log stopped accepting appends after a failed write: " +
                         status.message());
    }
  }

  // Deferred writes await a sync: start the background deadline. Called with mu_ held.
  void NoteUnsynced() {
    std::lock_guard lock(background_mu_);
    if (!unsynced_since_) {
      unsynced_since_ = std::chrono::steady_clock::now();
      // A syncer on its armed wait looks within one interval anyway: waking it for every
      // deferred write cost a futex wake and two context switches per write.
      if (syncer_asleep_) background_wake_.notify_one();
    }
  }
  void ClearUnsynced() {
    std::lock_guard lock(background_mu_);
    unsynced_since_.reset();
  }

  // The async writer: writes queued async appends in arrival order, merged into one batch,
  // without waiting for fsync. When more appends are already waiting, it hands the synced
  // ones to the syncer and writes on, so writing overlaps syncing under load; when the
  // queue is empty it syncs inline, which saves a thread hop for a lone caller.
  void AsyncWriterLoop() {
    std::unique_lock lock(background_mu_);
    while (true) {
      async_wake_.wait(lock, [&] { return stopping_ || !async_queue_.empty(); });
      if (async_queue_.empty()) return;  // stopping, and everything queued was written
      std::deque<AsyncAppend> work;
      work.swap(async_queue_);
      lock.unlock();
      WriteAsync(work);
      lock.lock();
    }
  }

  void WriteAsync(std::deque<AsyncAppend>& work) {
    std::vector<EventDraft> merged;
    std::vector<SyncWaiter> waiters;
    try {
      size_t drafts = 0;
      for (const auto& item : work) drafts += item.drafts.size();
      merged.reserve(drafts);
      waiters.reserve(work.size());
    } catch (const std::bad_alloc&) {
      // Out of memory on this thread, before anything was written: each append fails (an
      // exception leaving the thread would end the process: probe FR2).
      for (auto& item : work) item.done(OutOfMemory("appending to the log"));
      return;
    }
    for (auto& item : work) {
      for (auto& draft : item.drafts) merged.push_back(std::move(draft));
    }
    Result<AppendedRange> range = Commit(merged, Durability::kDeferred);
    uint64_t next = range.ok() ? range->first : 0;
    for (auto& item : work) {
      if (!range.ok()) {
        item.done(range.status());
        continue;
      }
      AppendedRange own{next, next + item.drafts.size() - 1};
      next += item.drafts.size();
      if (item.durability == Durability::kDeferred) {
        item.done(own);
      } else {
        waiters.push_back({own, std::move(item.done)});
      }
    }
    if (waiters.empty()) return;
    bool sync_in_flight = false;
    {
      std::lock_guard lock(mu_);
      sync_in_flight = syncing_;
    }
    {
      std::lock_guard lock(background_mu_);
      if (sync_in_flight || !async_queue_.empty()) {
        for (auto& waiter : waiters) sync_waiters_.push_back(std::move(waiter));
        background_wake_.notify_one();
        return;
      }
    }
    CompleteWaiters(waiters);
  }

  // Syncs everything the waiters wrote (one fsync covers them all), then tells them.
  void CompleteWaiters(std::vector<SyncWaiter>& waiters) {
    uint64_t last = 0;
    for (const auto& waiter : waiters) last = std::max(last, waiter.range.last);
    Status status;
    {
      std::unique_lock lock(mu_);
      status = AwaitDurable(lock, last);
    }
    for (auto& waiter : waiters) {
      if (status.ok()) {
        waiter.done(waiter.range);
      } else {
        waiter.done(status);
      }
    }
  }

  // The syncer: completes synced async appends handed over by the writer, and syncs
  // deferred writes that no synced append covered in time.
  void SyncerLoop() {
    std::unique_lock lock(background_mu_);
    bool armed = true;
    while (true) {
      if (!sync_waiters_.empty()) {
        std::vector<SyncWaiter> waiters;
        waiters.swap(sync_waiters_);
        lock.unlock();
        CompleteWaiters(waiters);
        lock.lock();
        armed = true;
        continue;
      }
      if (unsynced_since_) {
        const auto deadline = *unsynced_since_ + deferred_sync_interval_;
        if (stopping_ || std::chrono::steady_clock::now() >= deadline) {
          unsynced_since_.reset();
          lock.unlock();
          SyncWal();
          lock.lock();
          armed = true;
          continue;
        }
        background_wake_.wait_until(lock, deadline);
        continue;
      }
      if (stopping_ && writer_done_) return;
      if (armed) {
        // Nothing to do: stay armed for one interval (deferred writes come in runs), then
        // sleep until woken.
        armed = false;
        background_wake_.wait_for(lock, deferred_sync_interval_);
        continue;
      }
      syncer_asleep_ = true;
      background_wake_.wait(lock);
      syncer_asleep_ = false;
      armed = true;
    }
  }

  // The keeper's own thread: a key directory on a stalled disk must not hold up the syncs
  // (probe DK3). Keeps the durable head once per interval while it moves, and once more
  // when the log closes (after the syncer's last sync).
  void KeeperLoop() {
    std::unique_lock lock(keeper_mu_);
    bool last = false;
    while (!last) {
      last = keeper_stopping_;  // a keep begun before the close asked is not the last one
      lock.unlock();
      try {
        KeepDurableHead();
      } catch (const std::bad_alloc&) {
        // Out of memory (a memory limit): this head is not kept now, the next one is
        // tried; an exception leaving the thread ended the process (probe FR2).
      }
      lock.lock();
      if (!last) {
        keeper_wake_.wait_for(lock, keep_every_, [this] { return keeper_stopping_ || first_keep_due_; });
        first_keep_due_ = false;
      }
    }
  }

  // Hands the durable head to the keeper when it moved since the last one kept.
  void KeepDurableHead() {
    uint64_t durable = 0;
    {
      std::lock_guard lock(mu_);
      if (!failure_.ok()) return;
      durable = durable_sequence_;
    }
    if (durable == 0 || durable == kept_sequence_) return;
    if (!kept_first_) {  // event 1 never changes under a writer: read once
      auto first = EventHash(1);
      if (!first.ok()) return;  // an unreadable event: the open or a read says so
      kept_first_ = *first;
    }
    auto hash = EventHash(durable);
    if (!hash.ok()) return;
    keep_head_(KeptHead{*kept_first_, Head{durable, *hash}});
    kept_sequence_ = durable;
  }

  void SyncWal() {
    std::unique_lock lock(mu_);
    while (failure_.ok() && durable_sequence_ < written_sequence_) {
      if (syncing_) {
        synced_.wait(lock);  // a sync in flight may cover it already
        continue;
      }
      SyncLocked(lock);
      ++stats_.background_syncs;
    }
  }

 public:
  const SealVerdict& seal_at_open() const override { return seal_at_open_; }

  Head head() const override {
    std::lock_guard lock(mu_);
    return head_;
  }

  uint64_t durable_sequence() const override {
    std::lock_guard lock(mu_);
    return durable_sequence_;
  }

  LogStats stats() const override {
    std::lock_guard lock(mu_);
    return stats_;
  }

  Result<std::unique_ptr<EventCursor>> Read(uint64_t from) override {
    return OpenChainCursor(*store_, from, /*use_snapshot=*/true);
  }

  Status Verify() override {
    auto cursor = Read(1);
    if (!cursor.ok()) return cursor.status();
    return DrainAndVerify(**cursor);
  }

  Result<Hash> EventHash(uint64_t sequence) override { return store_->EventHash(sequence); }

  Status Flush() override { return store_->FlushFamilies(); }

  Status PutSnapshot(uint64_t sequence, std::string_view record) override {
    std::error_code unknown;
    const std::filesystem::space_info space = std::filesystem::space(store_->dir(), unknown);
    if (!unknown && (space.available < record.size() ||
                     space.available - record.size() < snapshot_free_reserve_)) {
      return Status(Code::kIo,
                    "not writing a snapshot of " + std::to_string(record.size()) + " bytes: the disk has " +
                        std::to_string(space.available) + " bytes free, and keeps " +
                        std::to_string(snapshot_free_reserve_) + " for the log's appends");
    }
    return store_->WriteResult(store_->db().Put(rocksdb::WriteOptions(), store_->snapshots(),
                                                layout::EncodeSequenceKey(sequence),
                                                rocksdb::Slice(record.data(), record.size())),
                               "writing a snapshot");
  }

  Result<std::vector<uint64_t>> SnapshotSequences() override {
    return store_->SnapshotSequences();
  }
  Result<std::string> GetSnapshot(uint64_t sequence) override {
    return store_->GetSnapshot(sequence);
  }

  Status DeleteSnapshot(uint64_t sequence) override {
    return store_->WriteResult(store_->db().Delete(rocksdb::WriteOptions(), store_->snapshots(),
                                                   layout::EncodeSequenceKey(sequence)),
                               "deleting a snapshot");
  }

 private:
  // WriteGroup, or the log's failure when memory ran out during it: RocksDB's write path is
  // not exception-safe (a write cut short left its writer queue waiting for ever, and the
  // close with it: probe FR4), so the store is abandoned, never flushed nor closed.
  Status WriteGroupOrAbandon(const std::vector<Request*>& group, Head& head, int64_t& time) {
    try {
      return WriteGroup(group, head, time);
    } catch (const std::bad_alloc&) {
      store_->Abandon();
      return OutOfMemory("appending to the log");
    }
  }

  // Sequences, stamps, hashes and writes one group, without fsync. Runs without the mutex;
  // only the write leader runs it, so `head` and `time` are its own.
  Status WriteGroup(const std::vector<Request*>& group, Head& head, int64_t& time) {
    // Room for every record up front: a Put that runs out of memory inside RocksDB's
    // WriteBatch aborts the process (an assertion of its save point, probe FR3); the
    // reservation itself fails before any record is begun.
    if (seal_key_ && seal_record_bytes_ == 0) {
      seal_record_bytes_ = EncodeHeadSeal({head, seal_at_open_.unvouched}, *seal_key_).size();
    }
    size_t reserve = kBatchOverheadBytes + seal_record_bytes_;
    for (const Request* member : group) {
      reserve += member->bytes + member->drafts->size() * kRecordOverheadBytes;
    }
    rocksdb::WriteBatch batch(reserve);
    std::string value;
    const int64_t now = std::max(clock_->NowMicros(), time);
    for (Request* member : group) {
      AppendedRange range{head.sequence + 1, head.sequence + member->drafts->size()};
      for (EventDraft& draft : *member->drafts) {
        auto* envelope = fb::GetMutableEnvelope(draft.envelope.data());
        envelope->mutate_sequence(++head.sequence);
        envelope->mutate_time_micros(now);
        std::memcpy(envelope->mutable_prev_hash()->mutable_bytes()->Data(), head.hash.data(),
                    head.hash.size());
        head.hash = ChainHash(head.hash, draft.envelope);
        value.assign(reinterpret_cast<const char*>(head.hash.data()), head.hash.size());
        value.append(reinterpret_cast<const char*>(draft.envelope.data()),
                     draft.envelope.size());
        auto s = batch.Put(store_->events(), layout::EncodeSequenceKey(head.sequence), value);
        if (!s.ok()) return FromRocks(s, "building the write batch");
      }
      range.last_hash = head.hash;
      member->result = range;
    }
    time = now;
    auto s = batch.Put(store_->meta(), std::string(layout::kHeadKey), layout::EncodeHead(head));
    if (!s.ok()) return FromRocks(s, "building the write batch");
    if (seal_key_) {
      // Every event this writer appends is vouched for; what it found unvouched stays so.
      s = batch.Put(store_->meta(), std::string(layout::kHeadSealKey),
                    EncodeHeadSeal({head, seal_at_open_.unvouched}, *seal_key_));
      if (!s.ok()) return FromRocks(s, "building the write batch");
    }
    return store_->WriteResult(store_->db().Write(rocksdb::WriteOptions(), &batch),
                               "appending to the log");
  }

  std::unique_ptr<RocksStore> store_;
  const WallClock* clock_;
  std::optional<SnapshotKey> seal_key_;  // reset only by LoadHead, before any append
  const bool keep_another_keys_seal_;
  SealVerdict seal_at_open_;  // set before the first append; read-only after
  size_t seal_record_bytes_ = 0;  // the head seal record's size; the write leader's (WriteGroup)

  mutable std::mutex mu_;
  std::deque<Request*> queue_;  // batches not yet written; the front leads the next write
  bool writing_ = false;        // a write leader is at work
  bool syncing_ = false;        // a WAL sync is in flight
  std::condition_variable synced_;
  uint64_t written_sequence_ = 0;  // last event written to the WAL
  uint64_t durable_sequence_ = 0;  // last event known to be on disk
  Head head_;                   // as of the last written group
  int64_t last_time_ = 0;
  Status failure_;              // sticky after a failed write
  LogStats stats_;

  // The background threads' state: the async queue (writer), synced async appends waiting
  // for their fsync and the deferred-sync deadline (syncer).
  const std::chrono::microseconds deferred_sync_interval_;
  const uint64_t snapshot_free_reserve_;
  std::mutex background_mu_;
  std::condition_variable async_wake_;       // the writer's
  std::condition_variable background_wake_;  // the syncer's
  std::deque<AsyncAppend> async_queue_;
  std::vector<SyncWaiter> sync_waiters_;
  std::optional<std::chrono::steady_clock::time_point> unsynced_since_;
  bool stopping_ = false;
  bool writer_done_ = false;
  bool syncer_asleep_ = false;  // on its untimed wait: a deferred write must wake it
  // KeepHead: set once, before the keeper thread starts; kept_* on that thread only.
  KeepHeadCallback keep_head_;
  std::chrono::microseconds keep_every_{0};
  uint64_t kept_sequence_ = 0;
  std::optional<Hash> kept_first_;
  std::mutex keeper_mu_;
  std::condition_variable keeper_wake_;
  bool keeper_stopping_ = false;  // guarded by keeper_mu_
  bool first_keep_due_ = false;   // guarded by keeper_mu_: a new log's first sync is done
  std::thread keeper_;  // started by KeepHead
  // Last: they start (in the constructor's body) after everything above is initialized.
  std::thread writer_;
  std::thread syncer_;
};

}  // namespace

Result<std::unique_ptr<EventLog>> EventLog::Open(const std::string& dir,
                                                 const LogOptions& options) {
  if (options.clock == nullptr) return InvalidArgument("LogOptions.clock must be set");
  auto store = RocksStore::Open(dir, RocksStore::Mode::kWriter, options.create_if_missing,
                                options.seal_key ? &*options.seal_key : nullptr);
  if (!store.ok()) return store.status();
  auto log = std::make_unique<RocksEventLog>(std::move(*store), options);
  LAS_RETURN_IF_ERROR(log->LoadHead());
  return std::unique_ptr<EventLog>(std::move(log));
}

}  // namespace las::log
