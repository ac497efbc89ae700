// RocksDB's info log, as Las gives it to RocksDB (internal to log/; includes RocksDB).
//
// A writer's info log is the file LOG in the log directory, appended with plain write(2)
// at WARN level and above. RocksDB's own file logger goes through its WritableFileWriter,
// which in Debian's build (assertions on) aborts the process when it is used again after
// a failed write — a full disk killed the server on its next warning instead of letting
// the failed append refuse further appends. Here a failed write is dropped (the failure
// that matters reaches Las as a status from the write or sync itself). At open, a LOG
// above 1 MiB becomes LOG.old (replacing the previous one), so the two stay bounded; after
// 4 MiB more in one run, lines are dropped.
//
// A follower's info log is discarded: without a logger of its own a secondary instance
// writes one into its "secondary path", a scratch directory that a reader killed by a
// signal leaves behind. Its failures reach Las as statuses anyway — all but one fact: a
// damaged write-ahead log fails the open with "checksum mismatch" alone, and only the
// info log names the file (FollowerInfoLog keeps that line).
//
// Thread safety: RocksDB calls Logv from its background threads; each line is one write.
#pragma once

#include <rocksdb/env.h>

#include <cstdarg>
#include <memory>
#include <mutex>
#include <string>

namespace las::log {

std::shared_ptr<rocksdb::Logger> OpenWriterInfoLog(const std::string& dir);

class DiscardedInfoLog final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

// A follower's or read-only instance's info log: discarded, but for the first report of a
// damaged write-ahead log ("DIR/000039.log: dropping 14663 bytes").
class FollowerInfoLog final : public rocksdb::Logger {
 public:
  FollowerInfoLog() : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  // The report, or empty when there was none.
  std::string wal_damage() const;

 private:
  mutable std::mutex mutex_;
  std::string wal_damage_;
};

}  // namespace las::log
