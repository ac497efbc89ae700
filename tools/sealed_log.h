// Opening a log as its writer with the head seal (log/head_seal.h; log/FORMAT.md §The head
// seal): the key that seals it and what the operator is told. Used by every writer — the
// server core and the CLI verbs that append to a log no server holds.
//
// Thread safety: free functions; notes go to stderr (base/note.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "log/event_log.h"

namespace las::tools {

// The key a writer of the log in `log_dir` seals with: the key in `key_file`, made when
// missing (WriterSealKey). nullopt when there is none to be had, with a note saying why the
// seal is off — except for no key file ("") and a key inside the log directory, which the
// caller notes with its snapshots.
std::optional<log::SnapshotKey> SealKeyOrNote(const std::string& key_file,
                                              const std::string& log_dir);

// Who writes, for what is done with a head sealed with another key than the writer's.
enum class SealWriter {
  kOperatorVerb,    // a CLI verb: leaves that seal in place and appends unsealed
  kServer,          // the same, saying how to seal with this key instead (probe DN1: a
                    // server whose key was lost or looked for under another HOME replaced
                    // the seal for good, and the old key then vouched for nothing)
  kAdoptingServer,  // `--adopt-seal`: replaces that seal with this key's (a rotation)
};

// EventLog::Open(dir, options) sealed with SealKeyOrNote(key_file, dir); with that key, the
// head kept outside the log judged and kept from then on (KeepHeadOutside: kCorruption for a
// log rolled back below it); then a note naming the events no seal of that key vouches for
// (log::UnvouchedNote), at every open while there are any, or saying what `writer` does
// with another key's seal (LogOptions::keep_another_keys_seal unless kAdoptingServer).
// A kCorruption refusal is returned WithRestoreAdvice.
Result<std::unique_ptr<log::EventLog>> OpenSealedLog(const std::string& dir,
                                                     const std::string& key_file,
                                                     log::LogOptions options, SealWriter writer);

// `status`, and when it is kCorruption (a log damaged or tampered with, found at its open or
// when its events are first read) what the operator can do about it.
Status WithRestoreAdvice(const Status& status);

}  // namespace las::tools
