// Where a writer keeps a log's head outside the log (log/kept_head.h; log/FORMAT.md §The
// kept head), and the judging and keeping around a writer's open.
//
// The file is beside the snapshot key — `<key file's directory>/heads/<name>`, the name 32
// hex digits of the SHA-256 of the log directory's canonical path, a '-' and the key's id
// (log::SealKeyId, 16 hex digits) — so that only who may change the key may change it:
// write access to the log directory is not enough. One file per log directory and key (two
// keys in one directory keep two: probe DK2); a directory of 0700 made when missing, files 0600, each write
// durable and atomic (base/durable_files.h). Nothing is kept, with a note, when anyone but
// this user (or root) could change that directory or what leads to it (base/path_exposure.h;
// probe FZ1: a planted `heads` link chose where Las wrote).
//
// Thread safety: free functions; the keeper KeepHeadOutside installs runs on the log's
// background thread and writes only its own file.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "log/event_log.h"
#include "log/kept_head.h"

namespace las::tools {

// How often a writer keeps its durable head while appends come (EventLog::KeepHead).
inline constexpr int64_t kKeepHeadEveryMicros = 1'000'000;

// The kept-head file of the log in `log_dir` for `key`, read from `key_file`.
std::string KeptHeadFile(const std::string& key_file, const log::SnapshotKey& key,
                         const std::string& log_dir);

// The record in `path`; nullopt when there is no file. kDenied / kIo (the message names
// the path) when it cannot be read safely (another owner, open to others, a link).
Result<std::optional<std::string>> ReadKeptHead(const std::string& path);

// Judges the head kept in `file` for `log`, just opened by a writer with `key`, before it
// appends: kCorruption (with what to do when the log was restored on purpose) when the log
// was rolled back or rewritten below it — or when its first event differs from the kept
// one and the log fails verification (a rollback with event 1 edited or removed is not
// another log: probe DK1; the whole chain is walked, once, only then). Otherwise starts
// keeping the log's durable head in `file` (log.KeepHead), with a note on stderr when the
// kept head was another log's, when this key sealed the log but no head of it was kept
// here (moved, copied or restored from elsewhere?), and when the file cannot be read (then
// nothing is kept, so that it is not overwritten). Temporaries a killed keeper left beside
// `file` are removed first; keeping that fails, and keeping that works again, is noted.
Status KeepHeadOutside(log::EventLog& log, const log::SnapshotKey& key, const std::string& file,
                       const std::string& log_dir);

// For a log whose first event is not the kept one (log::KeptState::kOtherLog), given its
// chain's verification (`verified`: Verify() from event 1 to its head; ok for an empty log):
// ok when the chain holds — another log, made anew there — else kCorruption with advice: a
// rollback with event 1 edited or removed (probe DK1). Other errors as they are.
Status AnotherLogOrRollback(const Status& verified, const std::string& file);

// What the message of a refused log adds: the file, and what to do when the log was
// restored from an older copy on purpose.
std::string KeptHeadAdvice(const std::string& file);

// The operator's line for a log that `verdict` found is not the log whose head was kept
// (probe DJ2's counterpart: a log made anew where another was).
std::string OtherLogNote(const log::KeptVerdict& verdict, const std::string& log_dir);

}  // namespace las::tools
