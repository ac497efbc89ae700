#include "cli/writer_refusal.h"

#include <optional>
#include <string_view>
#include <vector>

#include "log/kept_head.h"
#include "log/log_reader.h"
#include "tools/kept_head_file.h"

namespace las::cli {
namespace {

std::string JoinGaps(const std::vector<std::string>& gaps) {
  std::string joined;
  for (const std::string& gap : gaps) joined += (joined.empty() ? "" : "; ") + gap;
  return joined;
}

}  // namespace

Status WriterRefusal(const std::string& log_dir, const std::string& key_file,
                     const log::SnapshotKey& key, std::string* unjudged) {
  std::vector<std::string> gaps;
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
    auto seal = (*reader)->JudgeSeal(key, **cursor);
    if (!seal.ok()) return seal.status();
    if (seal->state == log::SealState::kAbsent) gaps.push_back("the log carries no head seal");
    if (seal->state == log::SealState::kOtherKey) gaps.push_back("its head seal is another key's");
    if (seal->state == log::SealState::kSealed && !seal->unvouched.empty()) {
      gaps.push_back("its seal leaves events unvouched (las replay lists them)");
    }
    if (!kept_record.ok()) {
      gaps.push_back("the head kept for it could not be read");
      if (unjudged != nullptr) *unjudged = JoinGaps(gaps);
      return Status::Ok();
    }
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
  if (kept->state == log::KeptState::kNone) gaps.push_back("no head of it was kept for this key here");
  if (unjudged != nullptr) *unjudged = JoinGaps(gaps);
  if (kept->state != log::KeptState::kOtherLog) return Status::Ok();
  return tools::AnotherLogOrRollback(head > 0 ? (*reader)->Verify() : Status::Ok(), kept_file);
}

}  // namespace las::cli
