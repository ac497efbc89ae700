// LogReader: a read-only follower of a Las log, for another process (the CLI, an auditor)
// while a writer may hold the log. It opens a RocksDB secondary instance, so it never takes
// or waits for the writer's lock and never blocks it. It sees what the writer had written
// when it opened or last called CatchUp() — whole batches, in order, including any that no
// WAL fsync covered yet (a power loss may still remove those; log/FORMAT.md §Head).
//
// Thread safety: not thread-safe; use one reader per thread.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "log/event.h"
#include "log/event_cursor.h"
#include "log/head_seal.h"
#include "log/log_view.h"

namespace las::log {

class LogReader : public LogView {
 public:
  // Errors: kNotFound (no log in dir), kNotALog, kUnsupported, kDenied, kIo.
  static Result<std::unique_ptr<LogReader>> Open(const std::string& dir);
  virtual ~LogReader() = default;

  // Sees the writer's later appends.
  virtual Status CatchUp() = 0;
  virtual Result<Head> head() = 0;
  // The head seal that `cursor` (one of this reader's) read with its head, judged with
  // `key` (log/head_seal.h). kCorruption when a seal of this key contradicts the log
  // (altered, the log cut or rewritten).
  virtual Result<SealVerdict> JudgeSeal(const SnapshotKey& key, const EventCursor& cursor) = 0;
  // Read(): a cursor must not outlive this reader, and CatchUp() must not be called while
  // it is in use. The snapshot reads see what Read() sees.
  virtual Status Verify() = 0;
};

// Walks a cursor to its end; ok or the cursor's error.
Status DrainAndVerify(EventCursor& cursor);

}  // namespace las::log
