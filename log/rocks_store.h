// Private to log/: one open RocksDB instance holding a Las log, as its single writer
// (primary) or as a read-only follower (secondary instance, which never takes the
// writer's lock). Maps every RocksDB failure to a Las Status with a clear message.
#pragma once

#include <rocksdb/db.h>
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "log/event.h"
#include "log/head_seal.h"

namespace las::log {

// The chain hash stored with event `sequence` in `events` (LogView::EventHash's contract).
Result<Hash> StoredEventHash(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* events,
                             uint64_t sequence);

class RocksStore {
 public:
  enum class Mode { kWriter, kFollower };

  // Writer: creates the log when `dir` is missing or empty and create_if_missing is set,
  // and refuses a directory CheckLogDirectory refuses (log/log_directory.h: kDenied).
  // Follower: the log must exist. Errors: kNotFound, kNotALog, kUnsupported (newer
  // format), kLocked (another process, or another store of this one, holds the lock),
  // kDenied (permissions), kIo (also a lock that cannot be taken for any other reason: a
  // read-only file system, no space, LOCK a directory), kCorruption.
  // A writer's `seal_key` (may be null) judges the head seal (log/head_seal.h) before the
  // open writes anything: a seal that contradicts the log refuses it (kCorruption).
  static Result<std::unique_ptr<RocksStore>> Open(const std::string& dir, Mode mode,
                                                  bool create_if_missing,
                                                  const SnapshotKey* seal_key = nullptr);
  // A writer flushes every family before it closes: the events then live in table files
  // the MANIFEST lists (a missing one refuses the next open), not only in a WAL, which
  // RocksDB tracks only once it has been closed. A writer whose directory is no longer in
  // place (CheckInPlace) is abandoned instead: RocksDB works by path, and flushing or
  // closing would write into, and delete files of, whatever now has that path.
  ~RocksStore();
  RocksStore(const RocksStore&) = delete;
  RocksStore& operator=(const RocksStore&) = delete;

  rocksdb::DB& db() { return *db_; }
  rocksdb::ColumnFamilyHandle* events() { return events_; }
  rocksdb::ColumnFamilyHandle* meta() { return meta_; }
  rocksdb::ColumnFamilyHandle* snapshots() { return snapshots_; }
  const std::string& dir() const { return dir_; }

  // Writer: writes every family's memtable to table files now, as closing does. kIo if that
  // fails (a full disk, say: the events stay in the WAL, and the next open recovers them),
  // or if the directory is no longer in place (CheckInPlace: nothing is written then).
  Status FlushFamilies();
  // Memory ran out inside one of this writer's RocksDB calls, which RocksDB's write path
  // does not survive (a write cut short left its writer queue waiting for ever, and the
  // close's flush with it: probe FR4). The store is then abandoned at destruction as a
  // moved one is, and FlushFamilies fails at once.
  void Abandon() { abandoned_ = true; }
  // kIo unless the log's path still names the directory opened (moved, replaced or removed
  // while open, it does not; the open files then belong to another path). One stat(2); a
  // writer's log calls it after every WAL sync, before anything is acknowledged, and a
  // follower's CatchUp before it reads on.
  Status CheckInPlace() const;
  // What a write, sync or flush of this writer returned (FromRocksWrite), saying so when
  // the directory was moved away under it: that is why such a write fails on a missing file.
  Status WriteResult(const rocksdb::Status& s, const std::string& what) const;

  // The head as of `read` (a snapshot, or the latest). kCorruption if missing/garbled.
  Result<Head> ReadHead(const rocksdb::ReadOptions& read);
  // The head a writer appends after, checked in O(1) (the full walk is Verify()'s): the
  // event it names is there with its hash and is a valid event, and none follows it.
  // kCorruption naming which. Open() has checked a writer's log this way on a read-only
  // instance before its own open could recover the WAL into new files (probe AY1).
  struct CheckedHead {
    SealVerdict seal;  // kNoKey without a key
    Head head;
    int64_t last_time_micros = 0;  // the head event's; 0 for an empty log
  };
  // With `seal_key`, also the head seal, judged: kCorruption when it contradicts the log.
  Result<CheckedHead> CheckHead(const SnapshotKey* seal_key = nullptr);
  // The stored head seal record (nullopt: none), as of `read`. kIo.
  Result<std::optional<std::string>> ReadHeadSeal(const rocksdb::ReadOptions& read);
  // Follower only: see everything the writer has made durable so far. The view is
  // settled: built while the writer's MANIFEST did not move (see SettleView in the .cc);
  // kIo if it kept moving for kSettleAttempts catch-ups. Open() settles its view too.
  Status CatchUp();
  // Follower only: a new secondary instance over the same directory, settled. CatchUp()
  // reopens by itself when the writer switched MANIFEST; ChainCursor also falls back to
  // this before it reports damage. No cursor or iterator may be in use.
  Status Reopen();
  // Follower: a check of the log's files apart from this view, which skips a file its
  // MANIFEST names but cannot find (a writer may have just deleted it): a read-only
  // instance of its own opens every file the MANIFEST names (kPresent; Open() does this),
  // and with kBlocks also verifies every table block's checksum (reads the whole log; for
  // a chain failure that stayed after Reopen, where a lost or damaged file would otherwise
  // read as events missing). kCorruption naming the file when one is missing or damaged;
  // Ok when the files are whole; kIo when they could not be checked (out of descriptors,
  // say: never called damage), kDenied.
  enum class FileCheck { kPresent, kBlocks };
  Status CheckFiles(FileCheck check) const;

  // The reads of log/log_view.h, for the writer and a follower alike (rocks_store_reads.cc).
  Result<Hash> EventHash(uint64_t sequence);
  Result<std::vector<uint64_t>> SnapshotSequences();
  Result<std::string> GetSnapshot(uint64_t sequence);

 private:
  RocksStore() = default;
  // `families_on_disk`: the column families an existing database holds (a writer opens
  // them all); empty for a new one.
  Status OpenDb(Mode mode, bool create_if_missing, const std::vector<std::string>& families_on_disk);
  Status CheckOrInitMetadata(Mode mode, bool fresh);
  Status NoteDirectory();  // dir_device_, dir_inode_
  Status SettleView();
  // What a failed step of SettleView means: kIo when the log followed so far was removed.
  Status RemovedWhileFollowed(const Status& failed) const;
  Status OpenSecondary();
  Status Adopt(const rocksdb::Status& opened, rocksdb::DB* raw,
               const std::vector<rocksdb::ColumnFamilyHandle*>& handles);
  void CloseDb();
  // Removes the kCreatingMarker file and releases its lock (a writer's own creation).
  void DropCreatingMarker();

  static constexpr int kSettleAttempts = 50;

  std::string dir_;
  bool writer_ = false;
  std::atomic<bool> abandoned_{false};  // Abandon()
  dev_t dir_device_ = 0;  // the directory opened (NoteDirectory)
  ino_t dir_inode_ = 0;
  std::string view_manifest_;  // follower: the MANIFEST its view was opened on
  UniqueFd creating_;          // writer making a new log: its locked creation marker
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* events_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  rocksdb::ColumnFamilyHandle* snapshots_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  // A writer's handles of column families no Las log has (log/FORMAT.md): RocksDB opens a
  // database for writing only with every family it holds. Never read or written.
  std::vector<rocksdb::ColumnFamilyHandle*> foreign_;
  // Every handle above, to destroy before the database closes.
  std::vector<rocksdb::ColumnFamilyHandle*> TakeHandles();
};

// Translates a RocksDB status (kOk -> ok) with `what` as context. kLocked only for a real
// conflict over the lock (another process holds it: EAGAIN; or this one does).
Status FromRocks(const rocksdb::Status& s, const std::string& what);
// The same for a live writer's write, sync or flush. A missing file there is no damage
// found in the events (an open or a read finds that) but a file lost under the running
// writer — its directory moved away while a flush wrote a table file, say: kIo, never
// kCorruption, so a server ends with the I/O exit code.
Status FromRocksWrite(const rocksdb::Status& s, const std::string& what);

}  // namespace las::log
