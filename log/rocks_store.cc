#include "log/rocks_store.h"

#include <rocksdb/convenience.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sodium.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/path_error.h"
#include "base/private_directories.h"
#include "log/envelope.h"
#include "log/events_generated.h"
#include "log/log_directory.h"
#include "log/rocks_damage_text.h"
#include "log/rocks_info_log.h"
#include "log/rocks_layout.h"

namespace las::log {
namespace fs = std::filesystem;

namespace {

bool Mentions(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// Whether a RocksDB failure is about the log's lock file: PosixEnv's LockFile says "while
// open a file for lock: DIR/LOCK: <reason>" when it cannot open (or create) DIR/LOCK, and
// "While lock file: DIR/LOCK: <reason>" when the fcntl lock fails.
bool AboutLockFile(const std::string& text) {
  return Mentions(text, "/LOCK:") || Mentions(text, "for lock") || Mentions(text, "lock file");
}

// Whether it is a real conflict: another process holds the fcntl lock (EAGAIN), or this
// process does (RocksDB keeps its own table of locked files, since fcntl locks do not
// conflict within a process).
bool LockConflict(const std::string& text) {
  return AboutLockFile(text) && (Mentions(text, "Resource temporarily unavailable") ||
                                 Mentions(text, "lock hold by current process"));
}

Status LockedStatus(const std::string& what) {
  return Locked(what + ": the log is held by another las process (a running server, or another "
                       "command still writing it)");
}

}  // namespace

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  const std::string text = s.ToString();
  // Before the lock test: a LOCK file this user may not open is "While open a file for
  // lock: ...: Permission denied", which no other process causes. EPERM ("Operation not
  // permitted": an immutable file or directory) is a refusal too, even for root.
  if (Mentions(text, "Permission denied") || Mentions(text, "Operation not permitted")) {
    return Denied(what + ": permission denied (" + text + ")");
  }
  if (LockConflict(text)) return LockedStatus(what);
  // Any other reason the lock file cannot be opened or locked — a read-only file system,
  // no space or inodes left, LOCK a directory or a dangling symlink — is no other
  // process's doing, and waiting would not help (probe AE2): an I/O error with the OS's
  // reason. Before the missing-file test: a dangling LOCK is no damage to the events.
  if (AboutLockFile(text)) return IoError(what + ": cannot take the log's lock (" + text + ")");
  if (s.IsCorruption()) return Corruption(what + ": " + text);
  // A file the MANIFEST names is gone: damage, not an I/O failure.
  if (s.IsIOError() && s.subcode() == rocksdb::Status::kPathNotFound) return Corruption(what + ": " + text);
  if (s.IsNotFound()) return NotFound(what + ": " + text);
  return IoError(what + ": " + text);
}

Status FromRocksWrite(const rocksdb::Status& s, const std::string& what) {
  if (s.IsIOError() && s.subcode() == rocksdb::Status::kPathNotFound) {
    return IoError(what + ": " + s.ToString());
  }
  return FromRocks(s, what);
}

namespace {

// A damaged write-ahead log fails an open with RocksDB's "checksum mismatch" alone; the
// file and the bytes its recovery would drop come from the info log (probe IB4).
Status NamingWalDamage(Status status, const std::string& wal_damage) {
  if (status.code() != Code::kCorruption || wal_damage.empty()) return status;
  return Corruption(status.message() + " (in the write-ahead log, which holds the newest events: " +
                    wal_damage + ")");
}

// Where the writer's MANIFEST stands: the file CURRENT names and its size. Any change the
// writer makes to the set of live files (a flush, a compaction, a new WAL, its next open)
// is written there before an obsolete file is deleted.
std::string ManifestMark(const std::string& dir) {
  std::ifstream current(fs::path(dir) / "CURRENT");
  std::string name;
  if (!std::getline(current, name) || name.empty()) return {};
  std::error_code ec;
  const auto size = fs::file_size(fs::path(dir) / name, ec);
  if (ec) return {};
  return name + ":" + std::to_string(size);
}

// Whether another process holds RocksDB's lock on `dir` (an fcntl write lock on dir/LOCK,
// as RocksDB's PosixEnv takes it). Asks without locking; false when it cannot tell.
bool LockHeldByAnotherProcess(const std::string& dir) {
  const std::string path = (fs::path(dir) / "LOCK").string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  const bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

rocksdb::Options BaseOptions() {
  rocksdb::Options options;
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  options.max_manifest_file_size = 64 << 20;
  options.recycle_log_file_num = 0;
  options.IncreaseParallelism(2);
  // With max_open_files -1 every table is loaded at open, by default on 16 threads of the
  // open's own; one that cannot start (a low process limit, a cgroup's pids.max) aborted the
  // process from inside RocksDB (probe FH1). One loads them inline: a log has few tables.
  options.max_file_opening_threads = 1;
  // RocksDB's periodic statistics dump (to its info log, which Las keeps at WARN) runs on
  // its timer thread, where running out of memory ended the process (probe FR3).
  options.stats_dump_period_sec = 0;
  options.stats_persist_period_sec = 0;
  // Every write batch touches the tiny `meta` family (the head), whose memtable almost never
  // fills; without a cap RocksDB keeps every WAL file alive until it does (by default up to
  // 4 x the sum of all write buffers, ~2 GiB), and replays all of it at the next open. The
  // cap makes it flush `meta` instead, so the WAL stays small and reopening stays quick.
  options.max_total_wal_size = 256 << 20;
  return options;
}

// How an open that recovers the WAL treats it: the writer's, and the format check's before
// it. Acknowledged events may live only in the WAL. RocksDB's default recovery
// (kPointInTimeRecovery) stops at damage in it, drops every later record — acknowledged ones
// too — and deletes the file; the next append would then extend the shortened chain and
// verify. Instead: only a torn last record (a write cut short by a crash, never
// acknowledged) is tolerated; damage anywhere else, or a WAL file the MANIFEST knows and the
// directory lacks, refuses the open as corruption. Both opens must track WALs alike: after a
// crash the MANIFEST may list live WAL files, and RocksDB 7.8 aborts (an assertion in
// DBImpl::Recover) a read-only open that does not track them.
void SetWalRecovery(rocksdb::Options& options) {
  options.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  options.track_and_verify_wals_in_manifest = true;
}

// The events family is read mostly by full scans (replay, verification) and written only
// at the end. Measured on a 300,000-event sample log (callgrind, read+verify per event):
// Snappy with 4 KiB blocks (RocksDB's default) ~7,550 instructions, LZ4 with 4 KiB ~6,710,
// LZ4 with 16 KiB ~6,160, no compression with 16 KiB ~6,340 (plus the kernel's copy of
// 3-4x the bytes). LZ4 decompresses faster than Snappy at a similar ratio, and larger
// blocks cut per-block iterator and checksum work. Neither is part of the log format
// (log/FORMAT.md): each table file records its own compression and block size.
// Every family's memtable holds at most 16 MiB (RocksDB's default is 64): a server's
// resident memory grows with what the memtables hold until they flush, and with 64 MiB
// a busy server rose from ~25 to ~100 MB between flushes (probe P3).
rocksdb::ColumnFamilyOptions FamilyOptions() {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 16 << 20;
  return cf;
}

rocksdb::ColumnFamilyOptions EventsFamilyOptions() {
  rocksdb::ColumnFamilyOptions cf = FamilyOptions();
  const auto supported = rocksdb::GetSupportedCompressions();
  cf.compression = std::find(supported.begin(), supported.end(), rocksdb::kLZ4Compression) !=
                           supported.end()
                       ? rocksdb::kLZ4Compression
                       : rocksdb::kNoCompression;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 16 << 10;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return cf;
}

// `meta` holds a few small keys, the head among them, rewritten by every batch: its
// memtable fills with superseded heads and nothing else. With 16 MiB it held up to 16 MiB
// of them, flushing out of step with `events`, so a busy server held two full memtables
// at its peak (heaptrack, docs/PERFORMANCE.md session 23). 1 MiB flushes a one-key table
// every ~10,000 batches instead.
rocksdb::ColumnFamilyOptions MetaFamilyOptions() {
  rocksdb::ColumnFamilyOptions cf = FamilyOptions();
  cf.write_buffer_size = 1 << 20;
  return cf;
}

std::vector<rocksdb::ColumnFamilyDescriptor> Families() {
  const rocksdb::ColumnFamilyOptions cf = FamilyOptions();
  return {{rocksdb::kDefaultColumnFamilyName, cf},
          {std::string(layout::kEventsFamily), EventsFamilyOptions()},
          {std::string(layout::kMetaFamily), MetaFamilyOptions()},
          {std::string(layout::kSnapshotsFamily), cf}};
}

// Families() and, after them, every other family of `on_disk` (the families the database
// holds; none for a new one): a writer must open them all. Something else's, beside the
// log (probe GJ1: the writer refused the log as an I/O error while `las replay` verified it
// whole); a newer format's would be refused by its format version first.
std::vector<rocksdb::ColumnFamilyDescriptor> FamiliesToWrite(const std::vector<std::string>& on_disk) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = Families();
  for (const std::string& name : on_disk) {
    const bool known = std::any_of(families.begin(), families.end(),
                                   [&](const auto& family) { return family.name == name; });
    if (!known) families.push_back({name, FamilyOptions()});
  }
  return families;
}

bool HasTableFiles(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".sst") return true;
  }
  return false;
}

// Classifies `dir` before RocksDB touches it, so that a foreign directory is never
// written to and every failure has its own clear message.
// kUnfinished: a creation's marker (kCreatingMarker) beside only what a creation makes
// before its first write (NothingWrittenYet): the creation is still under way, or was
// killed; Open tells which.
enum class DirState { kMissing, kEmpty, kRocks, kUnfinished, kForeign };

// Written (and the directory synced) before RocksDB makes its first file in a new log, and
// removed once the format marker is durable: a creation killed in between leaves it beside
// RocksDB's first files, so that the next open knows them for its own unfinished work and
// starts over, instead of calling the log damaged or foreign for good (probe CW1).
constexpr std::string_view kCreatingMarker = "LAS-CREATING";

bool NothingWrittenYet(const std::string& dir);

Result<DirState> Inspect(const std::string& dir) {
  std::error_code ec;
  auto status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    if (ec == std::errc::permission_denied) return Denied(dir + ": permission denied");
    // A path under a file, a symlink loop, a name too long: the operator's to fix (exit 2);
    // anything else the system's (ec holds an errno, generic or system category).
    return PathErrorStatus(ec.value(), dir);
  }
  if (!fs::exists(status)) return DirState::kMissing;
  if (!fs::is_directory(status)) return Status(Code::kNotALog, dir + ": not a directory");
  if (::access(dir.c_str(), R_OK | X_OK) != 0) {
    return Denied(dir + ": cannot read the directory (" + std::strerror(errno) + ")");
  }
  fs::directory_iterator it(dir, ec);
  if (ec) return IoError(dir + ": " + ec.message());
  // Only an info log and a lock file: a log that a writer has begun to make this instant
  // (they come first), or one whose making failed. Nothing to lose by making it again; a
  // writer still at it holds the lock, and the open then says "locked".
  bool bare = true;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name != "LOG" && name != "LOCK" && !name.starts_with("LOG.old")) {
      bare = false;
      break;
    }
  }
  if (bare) return DirState::kEmpty;
  // Only a regular file: a FIFO would hang the lock's open, a directory never goes away
  // (probe DD7); either makes the directory someone else's, as any other file does.
  if (fs::is_regular_file(fs::symlink_status(fs::path(dir) / kCreatingMarker, ec)) &&
      NothingWrittenYet(dir)) {
    return DirState::kUnfinished;
  }
  if (fs::exists(fs::path(dir) / "CURRENT", ec)) return DirState::kRocks;
  // A RocksDB that lost its CURRENT file is a damaged log, not someone else's directory.
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("MANIFEST-") || name.starts_with("OPTIONS-")) {
      return Corruption(dir + ": a damaged log (RocksDB's CURRENT file is missing)");
    }
  }
  return DirState::kForeign;
}

// The format marker and version of an existing log, read through `db`.
Status CheckFormat(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta, const std::string& dir) {
  std::string magic;
  auto s = db.Get(rocksdb::ReadOptions(), meta, std::string(layout::kMagicKey), &magic);
  // A read that failed (a damaged table file) is corruption, not a foreign directory; so is
  // a marker missing beside table files (deleted, or a reader left out the table file it
  // could not open and then found nothing) and one that holds another value: the store
  // has the log's own column families, so it is a Las log that was damaged (probe IB1, IB2).
  if (!s.ok() && !s.IsNotFound()) return FromRocks(s, dir);
  if (s.IsNotFound() && HasTableFiles(dir)) {
    return Corruption(dir + ": the format marker is missing (deleted, or the table file that "
                            "holds it is damaged)");
  }
  if (s.IsNotFound()) return Status(Code::kNotALog, dir + ": not a Las log (no format marker)");
  if (magic != layout::kMagicValue) {
    return Corruption(dir + ": the format marker is altered (the log's column families are "
                            "there, its marker holds another value)");
  }
  std::string version_bytes;
  s = db.Get(rocksdb::ReadOptions(), meta, std::string(layout::kFormatVersionKey),
             &version_bytes);
  // A Las log always has its version beside its marker: missing is damage, not "no log".
  if (s.IsNotFound()) return Corruption(dir + ": the log has no format version");
  if (!s.ok()) return FromRocks(s, dir + ": reading the format version");
  auto version = layout::DecodeU32(version_bytes);
  if (!version || *version == 0) return Corruption(dir + ": garbled format version");
  if (*version > layout::kFormatVersion) {
    return Unsupported(dir + ": log format version " + std::to_string(*version) +
                       " is newer than this las understands (" +
                       std::to_string(layout::kFormatVersion) + ")");
  }
  return Status::Ok();
}

Result<Head> ReadHeadRecord(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta,
                            const rocksdb::ReadOptions& read, const std::string& dir) {
  std::string value;
  auto s = db.Get(read, meta, std::string(layout::kHeadKey), &value);
  if (s.IsNotFound()) return Corruption(dir + ": the log has no head record");
  if (!s.ok()) return FromRocks(s, dir + ": reading the head");
  auto head = layout::DecodeHead(value);
  if (!head) return Corruption(dir + ": garbled head record");
  return *head;
}

Result<std::optional<std::string>> ReadHeadSealRecord(rocksdb::DB& db,
                                                      rocksdb::ColumnFamilyHandle* meta,
                                                      const rocksdb::ReadOptions& read) {
  std::string value;
  auto s = db.Get(read, meta, std::string(layout::kHeadSealKey), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  LAS_RETURN_IF_ERROR(FromRocks(s, "reading the head seal"));
  return std::optional<std::string>(std::move(value));
}

Result<SealVerdict> JudgeSealOf(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* events,
                                rocksdb::ColumnFamilyHandle* meta, const Head& head,
                                const SnapshotKey* seal_key, const std::string& dir) {
  if (seal_key == nullptr) return SealVerdict{};
  auto record = ReadHeadSealRecord(db, meta, rocksdb::ReadOptions());
  if (!record.ok()) return record.status();
  auto verdict = JudgeHeadSeal(*record, seal_key, head, [&](uint64_t sequence) {
    return StoredEventHash(db, events, sequence);
  });
  if (!verdict.ok() && verdict.status().code() == Code::kCorruption) {
    return Corruption(dir + ": " + verdict.status().message());
  }
  return verdict;
}

Result<RocksStore::CheckedHead> CheckHeadOf(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* events,
                                            rocksdb::ColumnFamilyHandle* meta,
                                            const std::string& dir, const SnapshotKey* seal_key) {
  auto head = ReadHeadRecord(db, meta, rocksdb::ReadOptions(), dir);
  if (!head.ok()) return head.status();
  RocksStore::CheckedHead checked;
  checked.head = *head;
  auto seal = JudgeSealOf(db, events, meta, checked.head, seal_key, dir);
  if (!seal.ok()) return seal.status();
  checked.seal = std::move(*seal);
  if (checked.head.sequence == 0) return checked;
  const std::string head_name = std::to_string(checked.head.sequence);
  std::string value;
  auto s = db.Get(rocksdb::ReadOptions(), events, layout::EncodeSequenceKey(checked.head.sequence),
                  &value);
  if (!s.ok() && !s.IsNotFound()) return FromRocks(s, dir + ": reading the head event");
  if (s.IsNotFound() || value.size() < layout::kHashSize ||
      std::memcmp(value.data(), checked.head.hash.data(), layout::kHashSize) != 0) {
    return Corruption(dir + ": the head event " + head_name +
                      " is missing or does not match the head record");
  }
  // Its bytes are the store's, which anyone who can write the directory can replace
  // (and re-hash): read them only once they verify, from an aligned copy.
  const std::string bytes = value.substr(layout::kHashSize);
  if (!IsUsableEnvelope(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())) {
    return Corruption(dir + ": the head event " + head_name + " is not a valid event");
  }
  checked.last_time_micros = fb::GetEnvelope(bytes.data())->time_micros();
  s = db.Get(rocksdb::ReadOptions(), events, layout::EncodeSequenceKey(checked.head.sequence + 1),
             &value);
  if (!s.IsNotFound()) {
    if (!s.ok()) return FromRocks(s, dir + ": reading past the head");
    return Corruption(dir + ": an event exists beyond the recorded head");
  }
  return checked;
}

// A read-only instance of the log at `dir`: it writes nothing (its info log is discarded
// but for a damaged write-ahead log's report) and takes no lock. Every family's handle is destroyed before the instance.
struct ReadOnlyDb {
  std::shared_ptr<FollowerInfoLog> info_log = std::make_shared<FollowerInfoLog>();
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ~ReadOnlyDb() {
    for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
};

// A failed open or checksum pass as its Status: damage — a table file lost or cut short,
// a block or write-ahead log record that fails its checksum — as "the log's files are
// damaged", naming the file (probe IB3, IB4, IF1).
Status FromRocksDamage(const rocksdb::Status& s, const std::string& dir, const FollowerInfoLog& info_log) {
  Status status = FromRocks(s, dir);
  if (status.code() != Code::kCorruption) return status;
  return NamingWalDamage(
      Corruption(dir + ": the log's files are damaged: " + DescribeFileDamage(s.ToString())),
      info_log.wal_damage());
}

rocksdb::Status OpenReadOnly(const std::string& dir, ReadOnlyDb& out) {
  rocksdb::Options options = BaseOptions();
  options.info_log = out.info_log;
  SetWalRecovery(options);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status opened = rocksdb::DB::OpenForReadOnly(options, dir, Families(), &out.handles, &raw);
  out.db.reset(raw);
  return opened;
}

// CheckFormat and CheckHeadOf before a writer opens `dir`: RocksDB's writer open recovers
// the WAL into table files and writes a new MANIFEST, OPTIONS file and WAL before anything
// can be read, and a log this Las refuses (newer, foreign, damaged — an event planted
// beyond the head in the WAL, say) must be left exactly as it was, evidence included; a
// read-only instance recovers the WAL in memory only.
Status CheckFormatWithoutWriting(const std::string& dir, const SnapshotKey* seal_key) {
  ReadOnlyDb read_only;
  if (auto opened = OpenReadOnly(dir, read_only); !opened.ok()) {
    return FromRocksDamage(opened, dir, *read_only.info_log);
  }
  rocksdb::DB& db = *read_only.db;
  LAS_RETURN_IF_ERROR(CheckFormat(db, read_only.handles[2], dir));
  return CheckHeadOf(db, read_only.handles[1], read_only.handles[2], dir, seal_key).status();
}

// Whether RocksDB's newest OPTIONS file in `dir` names every family of a Las log: a
// MANIFEST that lists fewer (cut short) then belongs to a damaged log, not a foreign one.
bool OptionsNameLasFamilies(const std::string& dir) {
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = true;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  if (!rocksdb::LoadLatestOptions(config, dir, &db_options, &families).ok()) return false;
  for (auto want : {layout::kEventsFamily, layout::kMetaFamily, layout::kSnapshotsFamily}) {
    if (std::none_of(families.begin(), families.end(),
                     [&](const auto& family) { return family.name == want; })) {
      return false;
    }
  }
  return true;
}

// The files RocksDB makes in a database directory (its info log and lock among them).
bool IsRocksFileName(const std::string& name) {
  static constexpr std::string_view kNames[] = {"CURRENT", "IDENTITY", "LOCK", "LOG"};
  static constexpr std::string_view kPrefixes[] = {"LOG.old", "MANIFEST-", "OPTIONS-"};
  static constexpr std::string_view kSuffixes[] = {".log", ".sst", ".blob", ".dbtmp"};
  return std::any_of(std::begin(kNames), std::end(kNames), [&](auto n) { return name == n; }) ||
         std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](auto p) { return name.starts_with(p); }) ||
         std::any_of(std::begin(kSuffixes), std::end(kSuffixes),
                     [&](auto x) { return name.ends_with(x); });
}

// Whether `dir` holds only what a creation makes before it writes anything: the marker and
// RocksDB's files by their exact names (001234.log, MANIFEST-000001, ...), no table file,
// and every write-ahead log empty. Anything else is not ours to remove (probe CZ F3: a
// planted marker made a writer delete foreign files, or a damaged log's events).
bool NothingWrittenYet(const std::string& dir) {
  auto numbered = [](std::string_view digits) {
    return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
  };
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string_view view = name;
    const size_t dot = view.find('.');
    const std::string_view stem = view.substr(0, dot);
    const std::string_view suffix = dot == std::string_view::npos ? "" : view.substr(dot);
    if (name == kCreatingMarker || name == "CURRENT" || name == "IDENTITY" || name == "LOCK" ||
        name == "LOG" || name.starts_with("LOG.old")) {
      continue;
    }
    if ((stem.starts_with("MANIFEST-") || stem.starts_with("OPTIONS-")) &&
        numbered(stem.substr(stem.find('-') + 1)) && (suffix.empty() || suffix == ".dbtmp")) {
      continue;
    }
    if (numbered(stem) && suffix == ".dbtmp") continue;
    if (numbered(stem) && suffix == ".log" && entry.file_size(ec) == 0 && !ec) continue;
    return false;  // a table file, a written WAL, or a file RocksDB would not make
  }
  return !ec;
}

// Whether `path` still names the file open as `fd`.
bool StillNamed(const std::string& path, int fd) {
  struct stat named {};
  struct stat open {};
  return ::stat(path.c_str(), &named) == 0 && ::fstat(fd, &open) == 0 &&
         named.st_dev == open.st_dev && named.st_ino == open.st_ino;
}

// Leaves kCreatingMarker in `dir`, durably, before anything else is made there, and holds
// it locked (flock) until the creation ends: kLocked when another creation made it first.
// Between its making and its lock another writer may take it for a killed creation's and
// remove it (RemoveUnfinishedLog, under the marker's lock), then create the log itself: a
// marker no longer named once locked is that, and this creation yields (kLocked; two
// writers had created one log at once, CreationRaceTest under load).
Result<UniqueFd> MarkCreating(const std::string& dir) {
  const std::string path = (fs::path(dir) / kCreatingMarker).string();
  UniqueFd marker(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!marker.valid() && errno == EEXIST) return LockedStatus(dir);
  if (!marker.valid()) return IoError(dir + ": cannot create the log (" + std::strerror(errno) + ")");
  if (::flock(marker.get(), LOCK_EX | LOCK_NB) != 0) return LockedStatus(dir);
  if (!StillNamed(path, marker.get())) return LockedStatus(dir);
  UniqueFd directory(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.valid() || ::fsync(directory.get()) != 0) {
    return IoError(dir + ": cannot create the log (" + std::strerror(errno) + ")");
  }
  return marker;
}

// Whether a live creation holds `dir`'s kCreatingMarker (MarkCreating).
bool CreationUnderWay(const std::string& dir) {
  UniqueFd marker(::open((fs::path(dir) / kCreatingMarker).c_str(),
                         O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  return marker.valid() && ::flock(marker.get(), LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

// A log whose making failed (a full disk, too few descriptors) holds RocksDB's first files
// and no format marker, and every later open would call it damaged or foreign though no
// event was ever written (probe AU3). What the failed open made goes, so the next starts
// afresh — unless another writer holds the log by now, or has made it whole meanwhile.
// `remove_directory`: the open made the directory itself (it goes too, if empty).
void RemoveUnfinishedLog(const std::string& dir, bool remove_directory) {
  // Removed under the marker's lock: a creation that made it this instant and locks it
  // after finds it gone (MarkCreating), and one that locked it first keeps it.
  const std::string marker_path = (fs::path(dir) / kCreatingMarker).string();
  UniqueFd marker(::open(marker_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (marker.valid() && ::flock(marker.get(), LOCK_EX | LOCK_NB) != 0) return;
  if (LockHeldByAnotherProcess(dir) || CheckFormatWithoutWriting(dir, nullptr).ok()) return;
  std::error_code ignored;
  std::vector<fs::path> made;
  for (const auto& entry : fs::directory_iterator(dir, ignored)) {
    if (IsRocksFileName(entry.path().filename().string())) made.push_back(entry.path());
  }
  for (const fs::path& path : made) fs::remove(path, ignored);
  fs::remove(fs::path(dir) / kCreatingMarker, ignored);  // last: the rest is gone
  if (remove_directory) fs::remove(dir, ignored);  // only when empty
}

}  // namespace

Result<std::unique_ptr<RocksStore>> RocksStore::Open(const std::string& dir, Mode mode,
                                                     bool create_if_missing,
                                                     const SnapshotKey* seal_key) {
  // Every event read or written through this store is chain-hashed (log/chain_hash.cc).
  // libsodium selects its vectorized BLAKE2b (AVX2/SSE4.1) only in sodium_init(); without
  // it the chain hash runs the portable reference code (~20% slower here). Thread-safe
  // and idempotent.
  if (sodium_init() < 0) return Unsupported("libsodium cannot be initialized");
  // An unset variable in `--log "$DIR"`: never the current directory.
  if (dir.empty()) {
    return InvalidArgument("the log directory path is empty: give --log DIR (with no HOME or "
                           "XDG_STATE_HOME there is no default)");
  }
  // A log that another writer is creating this instant looks foreign or damaged until its
  // format marker is written; that writer holds the lock, and the answer is "locked".
  auto refused = [&](Status why) {
    if (mode == Mode::kWriter && (why.code() == Code::kNotALog || why.code() == Code::kCorruption) &&
        LockHeldByAnotherProcess(dir)) {
      return LockedStatus(dir);
    }
    return why;
  };
  auto state = Inspect(dir);
  if (!state.ok()) return refused(state.status());
  if (*state == DirState::kUnfinished) {
    if (CreationUnderWay(dir) || LockHeldByAnotherProcess(dir)) {
      if (mode == Mode::kWriter) return LockedStatus(dir);
      return NotFound(dir + ": no Las log here yet (another las process is creating it)");
    }
    if (mode == Mode::kWriter && create_if_missing) {
      RemoveUnfinishedLog(dir, /*remove_directory=*/false);  // a killed creation: again
      *state = DirState::kEmpty;
    } else {
      return NotFound(dir + ": no Las log here (a creation was interrupted; the next server "
                            "to open it creates it again)");
    }
  }
  const bool fresh = *state == DirState::kMissing || *state == DirState::kEmpty;
  if (*state == DirState::kForeign) {
    std::string why = dir + ": not a Las log (the directory has other files";
    // The directory that holds the log, as a demo or a backup lays it out (probe DX5).
    const std::string below = (std::filesystem::path(dir) / "log").string();
    if (auto inner = Inspect(below); inner.ok() && *inner == DirState::kRocks) {
      why += "; is the log " + below + "?";
    }
    return refused(Status(Code::kNotALog, why + ")"));
  }
  if (fresh && (mode == Mode::kFollower || !create_if_missing)) {
    return NotFound(dir + ": no Las log here");
  }
  // The writer's rule for who owns and who else reaches the directory (log/log_directory.h),
  // before anything reads or writes in it; a directory made here is checked once made.
  if (mode == Mode::kWriter && !fresh) {
    if (auto access = CheckLogDirectory(dir); !access.ok()) return access.status();
  }
  std::vector<std::string> names;  // the database's column families, listed once
  if (*state == DirState::kRocks) {
    // A RocksDB without our column families is someone else's database.
    auto s = rocksdb::DB::ListColumnFamilies(BaseOptions(), dir, &names);
    if (!s.ok()) return refused(FromRocks(s, dir));
    for (auto want : {layout::kEventsFamily, layout::kMetaFamily, layout::kSnapshotsFamily}) {
      if (std::find(names.begin(), names.end(), want) != names.end()) continue;
      if (OptionsNameLasFamilies(dir)) {
        return refused(Corruption(dir + ": a damaged log (RocksDB's MANIFEST lacks the log's "
                                        "column families its OPTIONS file names)"));
      }
      return refused(Status(Code::kNotALog, dir + ": a RocksDB database, but not a Las log"));
    }
  }
  // RocksDB renames its info log (LOG -> LOG.old.<time>) before it takes the lock, so every
  // refused attempt on a held log left a file behind and moved the holder's info log aside.
  if (mode == Mode::kWriter && *state == DirState::kRocks && LockHeldByAnotherProcess(dir)) {
    return LockedStatus(dir);
  }
  if (mode == Mode::kWriter && *state == DirState::kRocks) {
    if (Status format = CheckFormatWithoutWriting(dir, seal_key); !format.ok()) {
      return refused(format);
    }
  }
  std::unique_ptr<RocksStore> store(new RocksStore());
  store->dir_ = dir;
  // A follower's directory is known before its first view (CatchUp checks it is still the
  // one); a writer's may be made by the open.
  if (mode == Mode::kFollower) LAS_RETURN_IF_ERROR(store->NoteDirectory());
  LAS_RETURN_IF_ERROR(store->OpenDb(mode, fresh, names));
  if (mode == Mode::kWriter) LAS_RETURN_IF_ERROR(store->NoteDirectory());
  if (Status marked = store->CheckOrInitMetadata(mode, fresh); !marked.ok()) {
    if (mode == Mode::kWriter && fresh) {
      store.reset();  // closed, so that its files can go
      RemoveUnfinishedLog(dir, *state == DirState::kMissing);
    }
    // A secondary skips a table file it cannot open: a lost or cut one that held the
    // marker reads as a missing marker, and is named instead (probe IF2).
    if (mode == Mode::kFollower &&
        (marked.code() == Code::kCorruption || marked.code() == Code::kNotALog)) {
      LAS_RETURN_IF_ERROR(store->CheckFiles(FileCheck::kPresent));
    }
    return refused(marked);
  }
  if (mode == Mode::kWriter) {
    // The format marker is durable: the log is whole. Not synced: if the removal is lost,
    // the next writer's open removes it again (a log with anything written is never taken
    // for an unfinished creation).
    store->DropCreatingMarker();
  }
  // A secondary skips what it cannot find; a writer's open would refuse the log.
  if (mode == Mode::kFollower) LAS_RETURN_IF_ERROR(store->CheckFiles(FileCheck::kPresent));
  return store;
}

void RocksStore::DropCreatingMarker() {
  std::error_code ignored;
  fs::remove(fs::path(dir_) / kCreatingMarker, ignored);
  creating_ = UniqueFd();
}

Status RocksStore::OpenDb(Mode mode, bool fresh, const std::vector<std::string>& families_on_disk) {
  writer_ = mode == Mode::kWriter;
  if (!writer_) return SettleView();  // opens the secondary (OpenSecondary)
  rocksdb::Options options = BaseOptions();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  {
    options.create_if_missing = fresh;
    options.create_missing_column_families = fresh;
    // The log holds call arguments, private state and messages: a directory made here is
    // the owner's alone (its files are then out of reach whatever their mode), and so is
    // any missing one above it (the default log's ~/.local/state/las).
    bool made_directory = false;
    if (fresh) {
      auto made = MakePrivateDirectories(dir_);
      if (!made.ok()) {
        return Status(made.status().code(),
                      dir_ + ": cannot create the log directory (" + made.status().message() + ")");
      }
      made_directory = *made;
      // Made here (0700) or found empty, or made by someone else in between.
      if (auto access = CheckLogDirectory(dir_); !access.ok()) return access.status();
      auto marked = MarkCreating(dir_);
      if (!marked.ok()) {
        if (marked.status().code() != Code::kLocked) RemoveUnfinishedLog(dir_, made_directory);
        return marked.status();
      }
      creating_ = std::move(marked).value();
      // Another writer made the log whole between our look and our marker: it is not new.
      if (std::error_code ec; fs::exists(fs::path(dir_) / "CURRENT", ec)) {
        DropCreatingMarker();
        return LockedStatus(dir_);
      }
    }
    // Not RocksDB's own file logger: log/rocks_info_log.h says why. It needs the directory.
    options.info_log = OpenWriterInfoLog(dir_);
    SetWalRecovery(options);
    s = rocksdb::DB::Open(options, dir_, FamiliesToWrite(families_on_disk), &handles, &raw);
    if (!s.ok() && fresh) {
      DropCreatingMarker();  // ours (O_EXCL); its lock would keep RemoveUnfinishedLog off
      RemoveUnfinishedLog(dir_, made_directory);
    }
  }
  return Adopt(s, raw, handles);
}

Status RocksStore::OpenSecondary() {
  rocksdb::Options options = BaseOptions();
  options.max_open_files = -1;  // required by secondary instances
  auto info_log = std::make_shared<FollowerInfoLog>();
  options.info_log = info_log;
  // RocksDB keeps only its info log under the secondary path (rocksdb/db.h); with the
  // logger above it creates nothing there. The path is fixed, not taken from the
  // environment (TMPDIR may name nothing: probe AE6), and nothing can ever be made under
  // it (/dev/null is no directory): should RocksDB want to write there after all, the open
  // fails with a Status, and nothing lands in a directory shared with other users.
  const std::string unused = "/dev/null/las-follower-unused";
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status opened = rocksdb::DB::OpenAsSecondary(options, dir_, unused, Families(), &handles, &raw);
  if (!opened.ok()) return FromRocksDamage(opened, dir_, *info_log);
  return Adopt(opened, raw, handles);
}

Status RocksStore::Adopt(const rocksdb::Status& opened, rocksdb::DB* raw,
                         const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  if (!opened.ok()) return FromRocks(opened, dir_);
  db_.reset(raw);
  default_ = handles[0];
  events_ = handles[1];
  meta_ = handles[2];
  snapshots_ = handles[3];
  foreign_.assign(handles.begin() + 4, handles.end());
  return Status::Ok();
}

Status RocksStore::CheckOrInitMetadata(Mode mode, bool fresh) {
  if (fresh && mode == Mode::kWriter) {
    rocksdb::WriteBatch batch;
    batch.Put(meta_, std::string(layout::kMagicKey), std::string(layout::kMagicValue));
    batch.Put(meta_, std::string(layout::kFormatVersionKey),
              layout::EncodeU32(layout::kFormatVersion));
    batch.Put(meta_, std::string(layout::kHeadKey), layout::EncodeHead(Head{}));
    rocksdb::WriteOptions write;
    write.sync = true;
    return FromRocks(db_->Write(write, &batch), dir_ + ": initializing the log");
  }
  return CheckFormat(*db_, meta_, dir_);
}

Result<Head> RocksStore::ReadHead(const rocksdb::ReadOptions& read) {
  return ReadHeadRecord(*db_, meta_, read, dir_);
}

Result<RocksStore::CheckedHead> RocksStore::CheckHead(const SnapshotKey* seal_key) {
  return CheckHeadOf(*db_, events_, meta_, dir_, seal_key);
}

Result<std::optional<std::string>> RocksStore::ReadHeadSeal(const rocksdb::ReadOptions& read) {
  return ReadHeadSealRecord(*db_, meta_, read);
}

Status RocksStore::NoteDirectory() {
  struct stat opened {};
  if (::stat(dir_.c_str(), &opened) != 0) return IoError(dir_ + ": " + std::strerror(errno));
  dir_device_ = opened.st_dev;
  dir_inode_ = opened.st_ino;
  return Status::Ok();
}

// A secondary builds its view in steps — read the MANIFEST, open the table files it lists,
// list and replay the WALs — and RocksDB skips a file the writer deleted in between
// (db_impl_secondary.cc). A short-lived writer (`las grant`) flushes, writes a new MANIFEST
// and deletes the old WAL within milliseconds, so a view built across that held the events
// before and after the flushed ones but not those, and verification reported tampering
// that was not there. A view is kept only when the MANIFEST did not move while it was
// built; otherwise it is built again.
//
// Catching up (TryCatchUpWithPrimary) is used only while the writer keeps its MANIFEST.
// When the MANIFEST the view was built on is gone — a new writer opened the log — the
// secondary is opened afresh instead: catching up across writers stopped RocksDB 7.8
// with an assertion (version_builder.cc, "version_ != cfd->current()") after some hundred
// short-lived writers, and left one family behind for good before that.
Status RocksStore::SettleView() {
  // Another log put in its place (moved there, or copied after the old one was moved
  // away) would be read on as if it continued this one (probe AS2).
  if (!view_manifest_.empty() && !CheckInPlace().ok()) {
    return IoError(dir_ + ": the log was removed or replaced while it was read");
  }
  for (int attempt = 0; attempt < kSettleAttempts; ++attempt) {
    const std::string before = ManifestMark(dir_);
    const std::string manifest = before.substr(0, before.find(':'));
    Status step = Status::Ok();
    if (!db_ || manifest != view_manifest_) {
      CloseDb();
      step = OpenSecondary();
      if (step.ok()) view_manifest_ = manifest;
    } else if (auto s = db_->TryCatchUpWithPrimary(); !s.ok()) {
      step = FromRocks(s, dir_ + ": catching up with the writer");
    }
    if (!step.ok()) return RemovedWhileFollowed(step);
    if (!before.empty() && ManifestMark(dir_) == before) return Status::Ok();
  }
  return IoError(dir_ + ": the log kept changing while it was read; run this again");
}

// A writer replaces CURRENT by a rename and never goes without one, so a log that had a
// view and has no CURRENT now is being removed (rm -rf deletes the files before the
// directory), and one whose directory is no longer the one opened was moved or replaced:
// not damage found in the events (probe AP2), whatever RocksDB made of the files it missed
// (a missing CURRENT is corruption to it, a missing WAL directory an invalid argument:
// probe AV6). Without an earlier view, a missing CURRENT is the damage the open reports.
Status RocksStore::RemovedWhileFollowed(const Status& failed) const {
  if (view_manifest_.empty()) return failed;
  std::error_code ec;
  const bool current_gone = !fs::exists(fs::path(dir_) / "CURRENT", ec) && !ec;
  if (!current_gone && CheckInPlace().ok()) return failed;
  return IoError(dir_ + ": the log was removed or replaced while it was read");
}

Status RocksStore::CatchUp() { return SettleView(); }

Status RocksStore::Reopen() {
  if (writer_) return Unsupported("Reopen() is for followers");
  CloseDb();
  return SettleView();
}

std::vector<rocksdb::ColumnFamilyHandle*> RocksStore::TakeHandles() {
  std::vector<rocksdb::ColumnFamilyHandle*> handles = std::move(foreign_);
  foreign_.clear();
  for (auto* handle : {events_, meta_, snapshots_, default_}) {
    if (handle != nullptr) handles.push_back(handle);
  }
  events_ = meta_ = snapshots_ = default_ = nullptr;
  return handles;
}

void RocksStore::CloseDb() {
  if (!db_) return;
  for (auto* handle : TakeHandles()) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
  db_.reset();
}

Status RocksStore::CheckFiles(FileCheck check) const {
  Status result = Status::Ok();
  for (int attempt = 0; attempt < kSettleAttempts; ++attempt) {
    const std::string before = ManifestMark(dir_);
    ReadOnlyDb read_only;
    rocksdb::Status s = OpenReadOnly(dir_, read_only);
    if (s.ok() && check == FileCheck::kBlocks) s = read_only.db->VerifyChecksum();
    // "Damaged" is the verdict an auditor acts on: only for damage (a file missing or
    // failing its checks). Running out of descriptors (EMFILE, ENFILE), memory or any other
    // resource says nothing of the files (probe AE4): an I/O error naming its cause.
    result = FromRocksDamage(s, dir_, *read_only.info_log);
    if (!result.ok() && result.code() != Code::kCorruption && result.code() != Code::kDenied) {
      result = Status(result.code(), dir_ + ": the log's files could not be checked: " + s.ToString());
    }
    // A file a live writer deleted (a compaction) between reading its MANIFEST and opening
    // the file is no damage: the MANIFEST moved meanwhile, so look again.
    if (result.ok() || ManifestMark(dir_) == before) return result;
  }
  return Status::Ok();  // kept moving: a busy writer, whose own open checked its files
}

Status RocksStore::CheckInPlace() const {
  struct stat now {};
  if (::stat(dir_.c_str(), &now) != 0 || now.st_dev != dir_device_ || now.st_ino != dir_inode_) {
    return IoError(dir_ + ": the log directory was moved, replaced or removed while open");
  }
  return Status::Ok();
}

RocksStore::~RocksStore() {
  if (db_ && writer_ && (abandoned_ || !CheckInPlace().ok())) {
    // Abandoned, not closed (see the header): the process's exit releases it. Kept
    // reachable, so leak checkers do not report what is left on purpose.
    for (auto* handle : TakeHandles()) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    static auto* abandoned = new std::vector<std::unique_ptr<rocksdb::DB>>();
    abandoned->push_back(std::move(db_));
    return;
  }
  if (db_ && writer_) (void)FlushFamilies();  // a failure was the caller's to ask (EventLog::Flush)
  CloseDb();
}

Status RocksStore::FlushFamilies() {
  if (abandoned_) return IoError("the log is not flushed: memory ran out inside RocksDB");
  LAS_RETURN_IF_ERROR(CheckInPlace());
  rocksdb::FlushOptions flush;
  flush.wait = true;
  return WriteResult(db_->Flush(flush, {events_, meta_, snapshots_}), "flushing the log");
}

Status RocksStore::WriteResult(const rocksdb::Status& s, const std::string& what) const {
  if (s.ok()) return Status::Ok();
  if (Status moved = CheckInPlace(); !moved.ok()) return moved;
  return FromRocksWrite(s, what);
}

}  // namespace las::log
