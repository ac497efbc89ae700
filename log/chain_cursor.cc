#include "log/chain_cursor.h"

#include <cstring>
#include <string>

#include "log/envelope.h"
#include "log/events_generated.h"
#include "log/rocks_layout.h"

namespace las::log {
namespace {

class ChainCursor final : public EventCursor {
 public:
  ChainCursor(RocksStore& store, bool use_snapshot) : store_(store), follower_(!use_snapshot) {
    if (use_snapshot) {
      snapshot_ = store.db().GetSnapshot();
      read_.snapshot = snapshot_;
    }
    read_.fill_cache = false;  // sequential scan: don't evict the working set
    read_.readahead_size = 2 << 20;
  }
  ~ChainCursor() override {
    iter_.reset();
    if (snapshot_ != nullptr) store_.db().ReleaseSnapshot(snapshot_);
  }

  // Positions the iterator on the first key after event from-1 (the anchor, whose stored
  // hash the chain continues from), so that a stray key between the anchor and `from` is
  // read, not skipped.
  Status Start(uint64_t from) {
    auto head = store_.ReadHead(read_);
    if (!head.ok()) return head.status();
    head_ = *head;
    auto seal = store_.ReadHeadSeal(read_);
    if (!seal.ok()) return seal.status();
    head_seal_ = std::move(*seal);
    expected_ = from;
    iter_.reset(store_.db().NewIterator(read_, store_.events()));
    if (from == 1) {
      iter_->SeekToFirst();
      return Status::Ok();
    }
    const std::string anchor_key = layout::EncodeSequenceKey(from - 1);
    iter_->Seek(anchor_key);
    if (!iter_->Valid() || iter_->key().ToStringView() != anchor_key) {
      if (iter_->status().IsCorruption()) return Fail(from - 1, Unreadable());
      LAS_RETURN_IF_ERROR(FromRocks(iter_->status(), "reading event " + std::to_string(from - 1)));
      // Reading past the end is fine; a missing event inside the log is corruption.
      if (from - 1 <= head_.sequence) return FailMissing(from - 1, "event is missing");
      return Status::Ok();
    }
    if (iter_->value().size() < layout::kHashSize) return Fail(from - 1, "value too short to hold a hash");
    std::memcpy(previous_.data(), iter_->value().data(), layout::kHashSize);
    iter_->Next();
    return Status::Ok();
  }

  // A follower's view can be torn for a moment: RocksDB's secondary builds it in steps and
  // skips files a short-lived writer deleted meanwhile (a flushed WAL, a compacted table),
  // so events or the head can be missing from it although the log on disk is whole. A
  // chain failure in a follower is therefore re-read from the event that failed, once
  // after catching up and once after reopening the secondary (see RocksStore::Reopen);
  // only a failure that stays is reported. Real damage stays; a torn view does not.
  // Writers read a snapshot and never re-read.
  Status StartWithRereads(uint64_t from) {
    Status s = Start(from);
    for (int attempt = 1; !s.ok() && failed_ && follower_ && attempt <= kRereads; ++attempt) {
      LAS_RETURN_IF_ERROR(CatchUpForReread(attempt));
      s = Start(from);
    }
    return BlameDamagedFiles(std::move(s));
  }

  Result<bool> Next() override {
    if (failed_) {
      return Corruption(bad_ ? "the cursor already failed at event " + std::to_string(*bad_)
                             : std::string("the cursor already failed: the log's files are damaged"));
    }
    if (started_) iter_->Next();
    started_ = true;
    const Hash verified_link = previous_;  // the stored hash of the last event verified
    Result<bool> step = Step();
    for (int attempt = 1; !step.ok() && failed_ && follower_ && attempt <= kRereads; ++attempt) {
      LAS_RETURN_IF_ERROR(CatchUpForReread(attempt));
      Status restarted = Start(expected_);
      // The re-read continues from the new view's stored hash of that event: it must be
      // the one verified, or an event rewritten between the views would go unseen.
      if (restarted.ok() && previous_ != verified_link) {
        restarted = Fail(expected_ - 1, "its stored hash changed while the log was read");
      }
      step = restarted.ok() ? Step() : Result<bool>(restarted);
    }
    if (step.ok()) return step;
    return BlameDamagedFiles(step.status());
  }

  const StoredEvent& current() const override { return current_; }
  std::optional<uint64_t> first_bad_sequence() const override { return bad_; }
  Head head() const override { return head_; }
  const std::optional<std::string>& head_seal_record() const override { return head_seal_; }

 private:
  // Once after catching up, once after reopening; each view is settled (RocksStore).
  static constexpr int kRereads = 2;

  Status CatchUpForReread(int attempt) {
    failed_ = false;
    missing_ = false;
    bad_.reset();
    iter_.reset();
    return attempt == 1 ? store_.CatchUp() : store_.Reopen();
  }

  // A follower's "event is missing" that stayed after the rereads: when a table file is
  // lost or damaged, that is what is reported (the view skipped the file, so the missing
  // event says nothing of where the damage is), and no sequence is named.
  Status BlameDamagedFiles(Status failure) {
    if (failure.ok() || !missing_ || !follower_) return failure;
    Status files = store_.CheckFiles(RocksStore::FileCheck::kBlocks);
    if (files.ok()) return failure;
    bad_.reset();
    return files;
  }

  Result<bool> Step() {
    if (!iter_->Valid()) {
      // Damage in a table file (a block that fails its checksum): every event before
      // this one verified, so this is the first bad one.
      if (iter_->status().IsCorruption()) return Fail(expected_, Unreadable());
      LAS_RETURN_IF_ERROR(FromRocks(iter_->status(), "reading events"));
      return CheckEnd();
    }
    LAS_RETURN_IF_ERROR(CheckCurrent());
    return true;
  }

  std::string Unreadable() const {
    return "cannot be read (" + iter_->status().ToString() + ")";
  }

  Status Fail(uint64_t sequence, const std::string& what) {
    failed_ = true;
    bad_ = sequence;
    return Corruption("event " + std::to_string(sequence) + ": " + what);
  }
  // An event absent where the chain needs it: an edit, or a table file the view skipped.
  Status FailMissing(uint64_t sequence, const std::string& what) {
    missing_ = true;
    return Fail(sequence, what);
  }

  Status CheckCurrent() {
    auto sequence = layout::DecodeSequenceKey(iter_->key().ToStringView());
    if (!sequence) return Fail(expected_, "malformed key where this event should be");
    if (*sequence < expected_) {
      return Fail(expected_, "a key for sequence " + std::to_string(*sequence) + " stands before it");
    }
    if (*sequence != expected_) {
      // Past the head nothing is missing: there is an event too many, blamed where it lies
      // (probe BH5).
      if (expected_ > head_.sequence) return Fail(*sequence, "event beyond the recorded head");
      return FailMissing(expected_, "event is missing");
    }
    if (*sequence > head_.sequence) return Fail(*sequence, "event beyond the recorded head");
    auto value = iter_->value();
    if (value.size() < layout::kHashSize) return Fail(*sequence, "value too short");
    // RocksDB hands out values at any address; FlatBuffers reads 4- and 8-byte scalars in
    // place. Copy the envelope into the (heap-aligned) event first, then check that copy.
    current_.envelope.assign(value.data() + layout::kHashSize, value.size() - layout::kHashSize);
    const auto* bytes = reinterpret_cast<const uint8_t*>(current_.envelope.data());
    const size_t size = current_.envelope.size();
    if (!IsUsableEnvelope(bytes, size)) return Fail(*sequence, "envelope is not a valid event");
    const fb::Envelope* envelope = fb::GetEnvelope(bytes);
    if (envelope->sequence() != *sequence) {
      return Fail(*sequence, "envelope says sequence " + std::to_string(envelope->sequence()));
    }
    if (envelope->prev_hash() == nullptr ||
        std::memcmp(envelope->prev_hash()->bytes()->data(), previous_.data(),
                    layout::kHashSize) != 0) {
      return Fail(*sequence, "previous-hash link does not match the event before it");
    }
    Hash computed = ChainHash(previous_, {bytes, size});
    if (std::memcmp(computed.data(), value.data(), layout::kHashSize) != 0) {
      return Fail(*sequence, "content does not match its hash");
    }
    // Before the last event is handed out, not after: a reader must never take an event
    // that fails verification for a verified one.
    if (*sequence == head_.sequence && computed != head_.hash) {
      // The event matches its own stored hash: the chain is consistent up to here and ends
      // elsewhere than the head says. Events rewritten with every later hash, or the head
      // record itself: the head vouches for none of them (probe BH4).
      return Fail(*sequence, "the events up to this one chain consistently but end at another "
                             "hash than the recorded head: the events and every later hash, or "
                             "the head record, were rewritten; any event up to this one may have "
                             "changed");
    }
    current_.sequence = *sequence;
    current_.hash = computed;
    previous_ = computed;
    last_seen_ = *sequence;
    ++expected_;
    return Status::Ok();
  }

  Result<bool> CheckEnd() {
    if (head_.sequence >= expected_) {
      return FailMissing(expected_, "event is missing (the head records " +
                                 std::to_string(head_.sequence) + " events)");
    }
    return false;  // the head's hash was checked with its event (CheckCurrent)
  }

  RocksStore& store_;
  const bool follower_;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  rocksdb::ReadOptions read_;
  std::unique_ptr<rocksdb::Iterator> iter_;
  Head head_;
  std::optional<std::string> head_seal_;
  Hash previous_ = kGenesisHash;
  uint64_t expected_ = 1;
  uint64_t last_seen_ = 0;
  bool started_ = false;
  bool failed_ = false;
  bool missing_ = false;  // failed on an absent event (FailMissing)
  std::optional<uint64_t> bad_;
  StoredEvent current_;
};

}  // namespace

Result<std::unique_ptr<EventCursor>> OpenChainCursor(RocksStore& store, uint64_t from,
                                                     bool use_snapshot) {
  if (from == 0) return InvalidArgument("sequences start at 1");
  auto cursor = std::make_unique<ChainCursor>(store, use_snapshot);
  LAS_RETURN_IF_ERROR(cursor->StartWithRereads(from));
  return std::unique_ptr<EventCursor>(std::move(cursor));
}

}  // namespace las::log
