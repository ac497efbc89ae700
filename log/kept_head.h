// The kept head (log/FORMAT.md §The kept head): a record of a log's durable head that a
// writer holding the snapshot key keeps OUTSIDE the log directory (beside the key:
// tools/kept_head_file.h), MACed with that key. The head seal (log/head_seal.h) lives in
// the log, so a log rolled back to an earlier state — an old copy of the directory, or a
// seal harvested as it was written and put back over a cut log (probe DJ2) — carries a seal
// that verifies. The kept head does not roll back with it: a log that now ends before the
// kept head, or holds another event there, was rolled back or rewritten.
//
// A log is named by its first event's hash, so a log made anew in the same place is
// another log, not a rolled-back one (the operator is told; nothing is refused).
//
// Thread safety: free functions over values; no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "log/event.h"
#include "log/head_seal.h"
#include "log/snapshot.h"

namespace las::log {

struct KeptHead {
  Hash first{};  // the hash of the log's event 1: which log this is
  Head head;     // a durable head of that log
};

// The record: magic, version, key id, first, head, and the MAC over all of it.
std::string EncodeKeptHead(const KeptHead& kept, const SnapshotKey& key);

enum class KeptState {
  kNone,       // nothing kept (no record)
  kOtherKey,   // a record of another key: it cannot be judged
  kOtherLog,   // this key kept the head of another log here (first events differ)
  kHolds,      // the log still holds the kept head
};

struct KeptVerdict {
  KeptState state = KeptState::kNone;
  KeptHead kept;  // kOtherLog and kHolds: what the record says
};

// Judges `record` (nullopt: none kept) for a log whose head is `head`, with `key`.
// kCorruption when this key's record says otherwise than the log: it fails its MAC (it was
// altered), the log ends before the kept head (rolled back or cut) or holds another event
// there (rewritten). kIo from `hash_at`.
Result<KeptVerdict> JudgeKeptHead(std::optional<std::string_view> record, const SnapshotKey& key,
                                  const Head& head, const HashAt& hash_at);

}  // namespace las::log
