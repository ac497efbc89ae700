#include "cli/log_fold.h"

#include <cstdio>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "log/log_reader.h"
#include "projections/snapshots.h"
#include "tools/snapshot_key_file.h"
#include "cli/fail.h"

namespace las::cli {

int FoldLog(const std::string& dir, projections::ProjectionSet& set, const std::string& key_file) {
  const Status folded = FoldLogQuietly(dir, set, key_file);
  return folded.ok() ? kExitOk : Fail(folded);
}

Status FoldLogQuietly(const std::string& dir, projections::ProjectionSet& set,
                      const std::string& key_file) {
  auto reader = log::LogReader::Open(dir);
  if (!reader.ok()) return reader.status();
  auto head = (*reader)->head();
  if (!head.ok()) return head.status();
  return FoldFromUsersSnapshot(**reader, head->sequence, set, dir, key_file).status();
}

Result<uint64_t> FoldFromUsersSnapshot(log::LogView& log, uint64_t head,
                                       projections::ProjectionSet& set, const std::string& dir,
                                       const std::string& key_file) {
  return projections::FoldFromNewestSnapshot(log, head, tools::UsableSnapshotKey(key_file, dir),
                                             set);
}

int FoldEvents(const std::string& dir,
               const std::function<void(uint64_t sequence, const fb::Envelope& event)>& apply) {
  auto reader = log::LogReader::Open(dir);
  if (!reader.ok()) return Fail(reader.status());
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) return Fail(cursor.status());
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok()) return Fail(more.status());
    if (!*more) return kExitOk;
    const log::StoredEvent& event = (*cursor)->current();
    apply(event.sequence, log::EnvelopeOf(event));
  }
}

}  // namespace las::cli
