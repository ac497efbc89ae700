// Folding a log into projections from the CLI, as a follower (a RocksDB secondary
// instance): works while a server holds the log and never blocks it.
#pragma once

#include <string>

#include "projections/projection_set.h"

namespace las::cli {

// Verifies and folds the whole log in `dir` into `set` (fresh). On failure prints
// "las WORDS: <status>" (cli/fail.h) on stderr and returns its exit code; 0 on success.
int FoldLog(const std::string& dir, projections::ProjectionSet& set);

}  // namespace las::cli
