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

// EventLog::Open(dir, options) sealed with SealKeyOrNote(key_file, dir); with that key, the
// head kept outside the log judged and kept from then on (KeepHeadOutside: kCorruption for a
// log rolled back below it); then a note naming the events no seal of that key vouches for
// (log::UnvouchedNote), at every open while there are any. `operator_verb`: a CLI verb, which leaves another key's seal in place
// (LogOptions::keep_another_keys_seal).
Result<std::unique_ptr<log::EventLog>> OpenSealedLog(const std::string& dir,
                                                     const std::string& key_file,
                                                     log::LogOptions options, bool operator_verb);

}  // namespace las::tools
