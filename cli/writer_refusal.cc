#include "cli/writer_refusal.h"

#include <optional>
#include <string_view>

#include "log/kept_head.h"
#include "log/log_reader.h"
#include "tools/kept_head_file.h"

namespace las::cli {

Status WriterRefusal(const std::string& log_dir, const std::string& key_file,
                     const log::SnapshotKey& key) {
  // Read before the log, as `las replay` does: a server keeps its head meanwhile.
  const std::string kept_file = tools::KeptHeadFile(key_file, key, log_dir);
  const Result<std::optional<std::string>> kept_record = tools::ReadKeptHead(kept_file);
  auto reader = log::LogReader::Open(log_dir);
  if (!reader.ok()) return reader.status();
  Result<log::KeptVerdict> kept = log::KeptVerdict();
  uint64_t head = 0;
  {
    // The cursor ends before Verify(), which may reopen the follower under it (probe DR1:
    // RocksDB aborted on a column family still referenced).
    auto cursor = (*reader)->Read(1);
    if (!cursor.ok()) return cursor.status();
    if (auto seal = (*reader)->JudgeSeal(key, **cursor); !seal.ok()) return seal.status();
    if (!kept_record.ok()) return Status::Ok();
    std::optional<std::string_view> record;
    if (*kept_record) record = **kept_record;
    head = (*cursor)->head().sequence;
    kept = log::JudgeKeptHead(record, key, (*cursor)->head(), [&](uint64_t sequence) {
      return (*reader)->EventHash(sequence);
    });
  }
  if (!kept.ok()) {
    return Status(kept.status().code(), kept.status().message() + tools::KeptHeadAdvice(kept_file));
  }
  if (kept->state != log::KeptState::kOtherLog) return Status::Ok();
  return tools::AnotherLogOrRollback(head > 0 ? (*reader)->Verify() : Status::Ok(), kept_file);
}

}  // namespace las::cli
