// `las replay`: verify the chain, print events as JSON lines, rebuild the projections and
// print their digests. Used by `las demo` as well.
#pragma once

#include <string>
#include <vector>

#include "projections/replay.h"

namespace las::cli {

struct ReplayOptions {
  std::string log_dir;
  projections::ReplayFilter filter;
  bool summary = false;  // final JSON summary line on stdout instead of digests on stderr
  // --anchor SEQ:HASH, each: event SEQ must be in the log with this chain hash (in hex).
  std::vector<std::string> anchors;
  // The key that judges the head seal (log/head_seal.h); "" or unusable: not judged —
  // unless given on the command line, where an unusable one fails the replay.
  std::string snapshot_key_file;
  bool snapshot_key_given = false;
  // --trust-store FILE: every recorded release must be signed by a key it lists; "": not
  // asked.
  std::string trust_store;
};

// Returns the exit code; writes JSON lines to stdout, diagnostics to stderr.
int RunReplay(const ReplayOptions& options);

}  // namespace las::cli
