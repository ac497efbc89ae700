// Folding a log into projections from the CLI, as a follower (a RocksDB secondary
// instance): works while a server holds the log and never blocks it. `las replay` does not
// use these: it verifies and folds everything.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "cli/paths.h"
#include "log/envelope.h"
#include "log/log_view.h"
#include "projections/projection_set.h"

namespace las::cli {

// Folds the log in `dir` into `set` (fresh): from its newest snapshot sealed with this
// user's snapshot key (cli/paths.h), as a server's start does, and verifying every event
// after it; without a usable one, every event from sequence 1
// (projections::FoldFromNewestSnapshot). On failure prints "las WORDS: <status>"
// (cli/fail.h) on stderr and returns its exit code; 0 on success. `key_file`: the snapshot
// key's file when a command names another (`las check --snapshot-key`).
int FoldLog(const std::string& dir, projections::ProjectionSet& set,
            const std::string& key_file = DefaultSnapshotKeyFile());
// The same fold, saying nothing: its status (for notes that may be left out).
Status FoldLogQuietly(const std::string& dir, projections::ProjectionSet& set,
                      const std::string& key_file = DefaultSnapshotKeyFile());

// The fold FoldLog makes, for a reader already open — a follower or the writer — of a log
// in `dir` whose head is `head`: projections::FoldFromNewestSnapshot with this user's
// snapshot key, or the one in `key_file` (none when it lies in `dir`: tools::KeyFileInsideLog).
Result<uint64_t> FoldFromUsersSnapshot(log::LogView& log, uint64_t head,
                                       projections::ProjectionSet& set, const std::string& dir,
                                       const std::string& key_file = DefaultSnapshotKeyFile());

// The same for a fold that is no projection of the set (the call ledger, every session):
// each verified event, in order, goes to `apply`.
int FoldEvents(const std::string& dir,
               const std::function<void(uint64_t sequence, const fb::Envelope& event)>& apply);

// FoldLog into a fresh `set` and the projection named `name` in it, as a T; nullptr with
// `exit_code` set when the fold failed.
template <typename T>
const T* FoldProjection(const std::string& dir, std::string_view name,
                        projections::ProjectionSet& set, int& exit_code,
                        const std::string& key_file = DefaultSnapshotKeyFile()) {
  exit_code = FoldLog(dir, set, key_file);
  return exit_code == 0 ? dynamic_cast<const T*>(set.Find(name)) : nullptr;
}

// FoldEvents into a reducer's `state`, through its reducers::Apply(state, sequence, event).
template <typename State>
int FoldEventsInto(const std::string& dir, State& state) {
  return FoldEvents(dir, [&state](uint64_t sequence, const fb::Envelope& event) {
    Apply(state, sequence, event);  // found by argument-dependent lookup in State's namespace
  });
}

}  // namespace las::cli
