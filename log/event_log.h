// EventLog: the single writer of a Las log — an append-only, hash-chained sequence of
// events in RocksDB (format: log/FORMAT.md).
//
// Append() is durable: when it returns ok, the events and the new head are on disk (one
// RocksDB write batch, WAL fsynced) and survive a crash or power loss. Appends that arrive
// while a sync is in flight are committed together in the next batch (group commit), so
// concurrent appenders share syncs. There is no operation that rewrites or deletes an event.
//
// Thread safety: all methods may be called from any thread concurrently.
// Errors: see Open(); after a failed write the log refuses further appends (kIo) and must
// be reopened, since RocksDB's state after a failed sync is not trusted.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "log/event.h"
#include "log/event_cursor.h"
#include "log/head_seal.h"
#include "log/kept_head.h"
#include "log/log_view.h"

namespace las::log {

struct LogOptions {
  bool create_if_missing = true;
  // Stamps each event's time_micros when it is sequenced (never going backwards within the
  // log). Must outlive the log. Tests inject a ManualClock.
  const WallClock* clock = &SystemWallClock();
  // Deferred appends (below) are fsynced at the latest this long after they were written,
  // unless a synced append made them durable sooner.
  int64_t deferred_sync_micros = 2000;
  // A snapshot is written only if the log's file system keeps at least this many bytes
  // free after it: a snapshot only saves time, and a full disk fails the log itself (the
  // appends after it are refused until it is reopened). The default leaves room for the
  // flushes of every family's full memtable (16 MiB each) and their compaction. Tests lower
  // or raise it.
  uint64_t snapshot_free_reserve_bytes = 64ull << 20;
  // The key of the head seal (log/head_seal.h; FORMAT.md §The head seal): with it, Open
  // judges the stored seal (a seal of this key that contradicts the log refuses it,
  // kCorruption) and every write stores a new seal beside the head. Without it the log
  // is written unsealed, and a later keyed writer lists those events as unvouched.
  std::optional<SnapshotKey> seal_key = std::nullopt;
  // A seal of another key is left in place and this writer appends unsealed, so that that
  // key later lists only these events as unvouched, not every event it vouched for (probe
  // DJ4: a CLI verb with the user's default key; DN1: a server whose key was lost or looked
  // for under another HOME). False only to replace that seal (`las serve --adopt-seal`).
  bool keep_another_keys_seal = false;
};

// How durable an append is when it returns.
enum class Durability {
  // On disk (WAL fsynced) before Append returns. The default, and what every decision that
  // precedes an outside effect uses (a ToolCallRequested before the child sees the call).
  kSynced,
  // Written to the WAL without waiting for fsync. It becomes durable with the next synced
  // append (the WAL is one sequential file) or by a background sync within
  // LogOptions::deferred_sync_micros. A crash in between loses at most that window, and
  // the chain stays whole: RocksDB recovers a prefix of the WAL.
  kDeferred,
};

// The sequences given to one Append() call: first..last inclusive, dense; and (from Append
// and AppendInPlace) the chain hash of `last` — each earlier event's hash is the prev_hash
// of the one after it — so a writer folding what it appended need not hash them again.
struct AppendedRange {
  uint64_t first = 0;
  uint64_t last = 0;
  Hash last_hash{};
};

// Counters since Open(); synced_groups < appends shows group commit at work.
struct LogStats {
  uint64_t appends = 0;        // successful Append() calls
  uint64_t events = 0;         // events appended
  uint64_t synced_groups = 0;  // WAL syncs made for synced appends (each covers a group)
  uint64_t deferred_groups = 0;  // write batches written without fsync
  uint64_t background_syncs = 0;  // WAL syncs made for deferred appends
};

// Its reads (LogView: Read, EventHash, the snapshots) see every event written, durable or
// not; Read() is over a RocksDB snapshot taken when it is called.
class EventLog : public LogView {
 public:
  // Opens the log in `dir`, creating it if the directory is missing or empty.
  // Errors: kNotALog (a foreign directory or database), kUnsupported (newer format),
  // kLocked (another process or EventLog holds it), kDenied (permissions; or a directory
  // owned by another user or writable by group or others: log/log_directory.h), kIo (a
  // lock that cannot be taken for another reason, such as a read-only file system, is
  // kIo), kCorruption (the head does not match the last event).
  static Result<std::unique_ptr<EventLog>> Open(const std::string& dir,
                                                const LogOptions& options = {});
  virtual ~EventLog() = default;

  // Appends `drafts` atomically, in order; with kSynced blocks until they are on disk.
  // Errors: kInvalidArgument (empty batch, or a draft that is not an Envelope built by
  // EventBuilder) — nothing is written; kIo — nothing acknowledged.
  virtual Result<AppendedRange> Append(std::vector<EventDraft> drafts,
                                       Durability durability = Durability::kSynced) = 0;

  // The same, on the caller's own vector: when it returns ok, `drafts` holds the events
  // exactly as stored (sequence, time and prev_hash filled in), so a caller on the writing
  // thread can fold them without reading them back. On error `drafts` is unspecified.
  virtual Result<AppendedRange> AppendInPlace(std::vector<EventDraft>& drafts,
                                              Durability durability = Durability::kSynced) = 0;

  // The same without blocking the caller: `done` runs later on the log's own background
  // thread with the result (it must not block for long; post to your loop). Appends still
  // share syncs with everything else in flight. Drafts are checked at once: an invalid
  // batch calls `done` with kInvalidArgument before this returns.
  using AppendCallback = std::function<void(Result<AppendedRange>)>;
  virtual void AppendAsync(std::vector<EventDraft> drafts, Durability durability,
                           AppendCallback done) = 0;

  // Calls `done` on the log's background thread once every event up to `sequence` is on
  // disk — at once (still on that thread) if it already is — running or joining a WAL sync
  // as needed; with the log's failure if it has failed. For a writer that appended with
  // kDeferred on its own thread (AppendInPlace) and wants the sync off that thread; the
  // syncs it asks for are shared with every other append in flight. A `sequence` not
  // written yet (beyond head()) calls `done` with kInvalidArgument before this returns.
  using DurableCallback = std::function<void(Status)>;
  virtual void AwaitDurableAsync(uint64_t sequence, DurableCallback done) = 0;

  // The head: the last event written, which this process's readers (Read(), and followers
  // in other processes) already see; durable or not — see durable_sequence().
  virtual Head head() const = 0;
  // The last sequence known to be on disk (a WAL sync covered it): ≤ head().sequence.
  virtual uint64_t durable_sequence() const = 0;
  virtual LogStats stats() const = 0;
  // The head seal as Open judged it (kNoKey without LogOptions::seal_key); the seals this
  // log writes carry its `unvouched` spans on.
  virtual const SealVerdict& seal_at_open() const = 0;

  // Keeping the head outside the log (log/kept_head.h): from this call on, `keep` runs on a
  // thread of its own (a slow disk there holds up no sync) with a durable head (every event
  // up to it synced) and the log's first event's hash — soon after this call, at once when
  // an empty log's first events are synced, then, while the durable head moves, at most
  // once per `every_micros`, and once at close after the last sync; never for an empty log,
  // nor after the log failed. `keep` must not call into
  // the log. Call at most once.
  using KeepHeadCallback = std::function<void(const KeptHead&)>;
  virtual void KeepHead(KeepHeadCallback keep, int64_t every_micros) = 0;

  // Writes what the memtables hold to table files, as closing does, and says whether that
  // worked: kIo (a full disk, say) leaves the events in the WAL, which the next open
  // recovers. A server calls it last, to report a failure the destructor could only drop.
  virtual Status Flush() = 0;

  // Walks the whole chain. Ok, or kCorruption naming the first bad sequence.
  virtual Status Verify() = 0;

  // Writing projection snapshots (LogView reads them). They are written without fsync (a
  // crash may lose the newest, which only lengthens the next start-up).
  // Stores `record` at `sequence`, replacing any record there. kIo, also (nothing written)
  // when the disk would keep less than LogOptions::snapshot_free_reserve_bytes free.
  virtual Status PutSnapshot(uint64_t sequence, std::string_view record) = 0;
  // Removes the record at `sequence` (ok if there was none). kIo.
  virtual Status DeleteSnapshot(uint64_t sequence) = 0;
};

}  // namespace las::log
