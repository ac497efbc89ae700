// Whether a writer would refuse a log, judged read-only: what `las check --log` adds to
// the watermark that log recorded, so that it does not pass a log `las serve` refuses
// (probe DQ2: a log restored from an older copy, with its watermark file).
#pragma once

#include <string>

#include "base/result.h"
#include "log/snapshot.h"

namespace las::cli {

// What a writer's open of the log in `log_dir` (tools::OpenSealedLog) refuses it for,
// judged as `las replay` judges, with `key` (read from `key_file`, beside which its heads are
// kept): a head seal of that key the log contradicts (altered, cut, rewritten), or a head
// kept outside the log for that key that the log no longer holds (rolled back, cut,
// rewritten) — or whose first event differs while the chain fails verification
// (tools::AnotherLogOrRollback). Ok when neither, or when its kept head cannot be read (a
// writer notes that and goes on). kCorruption with the writer's message; the reader's errors.
// When ok, `*unjudged` (if given) says what the key could not vouch for: a seal absent or of
// another key, no head kept for this log and key — "" when the seal and kept head hold (probe
// FM3: a copy with no seal passed as judged).
Status WriterRefusal(const std::string& log_dir, const std::string& key_file,
                     const log::SnapshotKey& key, std::string* unjudged = nullptr);

}  // namespace las::cli
