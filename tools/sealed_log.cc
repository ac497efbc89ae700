#include "tools/sealed_log.h"

#include <unistd.h>

#include <filesystem>

#include "base/absolute_path.h"
#include "base/durable_files.h"
#include "base/note.h"
#include "base/path_exposure.h"
#include "base/printable_text.h"
#include "base/shell_word.h"
#include "tools/kept_head_file.h"
#include "tools/snapshot_key_file.h"

namespace las::tools {

std::optional<log::SnapshotKey> SealKeyOrNote(const std::string& key_file,
                                              const std::string& log_dir) {
  auto key = WriterSealKey(key_file, log_dir);
  if (key.ok()) {
    // The key's own file is read only when private (trust/secure_file.h); a directory on
    // its way others may write lets them put another key in its place (probe FZ1).
    if (auto exposed = PathExposureNote(key_file, "the snapshot key " + key_file,
                                        "seal a rewritten log as if this writer had")) {
      Note("%s\n", EscapeForTerminal(*exposed).c_str());
    }
    return *key;
  }
  const bool said_elsewhere = key_file.empty() || KeyFileInsideLog(key_file, log_dir);
  if (!said_elsewhere) {
    Note("the log's head is not sealed: %s\n", EscapeForTerminal(key.status().message()).c_str());
  }
  return std::nullopt;
}

// The directory nearest `path` that exists (`path` itself when it does).
std::filesystem::path NearestExisting(std::filesystem::path path) {
  while (!PathExists(path.string()) && path.has_relative_path()) {
    path = path.parent_path();
  }
  return path;
}

// Removes the key file this process just made, and the directories made for it up to
// `existed` (each only while empty): a refused command leaves no key behind (probe GW1: a
// mistyped --snapshot-key, or a verb on a missing log, left a new secret key).
void RemoveMadeKey(const std::string& key_file, const std::filesystem::path& existed) {
  ::unlink(key_file.c_str());
  for (std::filesystem::path dir = std::filesystem::path(key_file).parent_path();
       dir != existed && dir.has_relative_path() && ::rmdir(dir.c_str()) == 0;) {
    dir = dir.parent_path();
  }
}

Status WithRestoreAdvice(const Status& status) {
  if (status.code() != Code::kCorruption) return status;
  return Corruption(status.message() +
                    "; if the log was damaged or tampered with, restore the last copy that "
                    "verifies (docs/CLI.md, \"Backups, restores, moves and the snapshot key\")");
}

Result<std::unique_ptr<log::EventLog>> OpenSealedLog(const std::string& dir,
                                                     const std::string& key_file,
                                                     log::LogOptions options, SealWriter writer) {
  const std::optional<std::filesystem::path> missing_key_under =
      key_file.empty() || PathExists(key_file)
          ? std::nullopt
          : std::optional(NearestExisting(std::filesystem::path(key_file).lexically_normal()));
  options.seal_key = SealKeyOrNote(key_file, dir);
  options.keep_another_keys_seal = writer != SealWriter::kAdoptingServer;
  if (writer == SealWriter::kAdoptingServer && !options.seal_key) {
    // Asked for a rotation that cannot happen: said, not left to be assumed (probe DP4).
    Note("--adopt-seal: nothing is adopted: this server has no snapshot key to seal with%s\n",
         key_file.empty() ? " (--snapshot-key \"\")" : "");
  }
  auto log = log::EventLog::Open(dir, options);
  if (!log.ok() && missing_key_under && options.seal_key) RemoveMadeKey(key_file, *missing_key_under);
  if (!log.ok()) return WithRestoreAdvice(log.status());
  if (options.seal_key) {
    LAS_RETURN_IF_ERROR(KeepHeadOutside(**log, *options.seal_key, KeptHeadFile(key_file, *options.seal_key, dir), dir));
  }
  const log::SealVerdict& seal = (*log)->seal_at_open();
  if (seal.state == log::SealState::kOtherKey) {
    const uint64_t head = (*log)->head().sequence;
    if (seal.other_key_id.empty() && writer != SealWriter::kAdoptingServer) {
      // No key made it, so none vouches for anything: no key to start with (probe DR5).
      Note("the log's head seal record names no snapshot key (damaged, or not written by Las): "
           "no key vouches for the log's events; this %s appends unsealed and leaves the record "
           "in place; to seal with %s from now on, start a server on the log once with "
           "--adopt-seal\n",
           writer == SealWriter::kServer ? "server" : "change", EscapeForTerminal(key_file).c_str());
      return log;
    }
    const std::string which =
        "the log's head is sealed with another snapshot key" +
        (seal.other_key_id.empty() ? std::string(" (its record names none)")
                                   : " (key id " + seal.other_key_id + ")") +
        " than " + EscapeForTerminal(key_file);
    if (writer == SealWriter::kOperatorVerb) {
      Note("%s (its server's --snapshot-key?): this change is appended unsealed, and that key's "
           "server will list it as unvouched\n", which.c_str());
    } else if (writer == SealWriter::kServer) {
      Note("%s (another --snapshot-key, or the key that sealed it was lost, moved, or is looked "
           "for under another HOME or XDG_CONFIG_HOME): this server appends unsealed and leaves "
           "that seal in place, so that key still vouches for the events it sealed and will "
           "list this server's as unvouched. Start with that key (--snapshot-key FILE), or, to "
           "seal with this one from now on, once with --adopt-seal\n",
           which.c_str());
    } else {
      Note("%s: --adopt-seal: this server seals the log with its key from its first write on, "
           "replacing that seal; none of the log's %llu event%s is vouched for by this key\n",
           which.c_str(), static_cast<unsigned long long>(head), head == 1 ? "" : "s");
    }
    return log;
  }
  const std::string note = log::UnvouchedNote(seal, (*log)->head().sequence);
  if (!note.empty()) {
    // With this writer's key: replay's default key may be another (probe DP3); a command
    // to paste, from any directory (DT2).
    Note("%s; las replay --log %s --snapshot-key %s --summary lists them\n", note.c_str(),
         EscapeForTerminal(ShellWord(AbsolutePath(dir))).c_str(),
         EscapeForTerminal(ShellWord(AbsolutePath(key_file))).c_str());
  }
  return log;
}

}  // namespace las::tools
