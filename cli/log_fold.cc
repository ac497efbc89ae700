#include "cli/log_fold.h"

#include <cstdio>

#include "cli/exit_codes.h"
#include "log/log_reader.h"
#include "projections/replay.h"
#include "cli/fail.h"

namespace las::cli {

int FoldLog(const std::string& dir, projections::ProjectionSet& set) {
  auto reader = log::LogReader::Open(dir);
  if (!reader.ok()) return Fail(reader.status());
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) return Fail(cursor.status());
  auto outcome = projections::Replay(**cursor, {}, {}, set);
  if (!outcome.status.ok()) return Fail(outcome.status);
  return kExitOk;
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
