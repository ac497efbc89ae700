#include "tools/kept_head_file.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "base/durable_files.h"
#include "base/hex.h"
#include "base/note.h"
#include "base/path_exposure.h"
#include "base/printable_text.h"
#include "base/sha256.h"
#include "trust/secure_file.h"

namespace las::tools {
namespace {

constexpr size_t kNameHexDigits = 32;

// Removes what a writer killed while keeping left beside `file` (StagedFile's ".NAME.tmp-*",
// base/durable_files.h): they piled up in heads/ (probe DN5). Only this log's writer keeps
// `file`, and it holds the log's lock, so none of them is being written.
void RemoveStaleTemporaries(const std::string& file) {
  const std::filesystem::path path(file);
  const std::string prefix = "." + path.filename().string() + ".tmp-";
  std::error_code error;
  for (std::filesystem::directory_iterator it(path.parent_path(), error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().filename().string().starts_with(prefix)) {
      std::error_code ignored;
      std::filesystem::remove(it->path(), ignored);
    }
  }
}

// Makes the kept head's directory (0700) when missing, after making sure no one but this
// user (or root) can change it or what leads to it: a `heads` link another user planted in
// a directory they could write took the head, and Las's writes, where they chose (probe
// FZ1). kDenied with the note otherwise.
Status PrepareHeadsDirectory(const std::string& file) {
  const std::string dir = std::filesystem::path(file).parent_path().string();
  if (auto exposed = PathExposureNote(dir, "the directory of kept heads " + dir,
                                      "put back an older head, so that a rollback of the log "
                                      "goes unseen, or choose where Las writes")) {
    return Status(Code::kDenied, *exposed);
  }
  return EnsureParentDirectory(file);
}

}  // namespace

std::string KeptHeadFile(const std::string& key_file, const log::SnapshotKey& key,
                         const std::string& log_dir) {
  std::error_code error;
  std::filesystem::path place = std::filesystem::weakly_canonical(log_dir, error);
  if (error) place = std::filesystem::absolute(log_dir, error).lexically_normal();
  const std::string key_id = log::SealKeyId(key);
  const std::string name =
      ToHex(Sha256Hasher::Of(place.string())).substr(0, kNameHexDigits) + "-" +
      ToHex({reinterpret_cast<const uint8_t*>(key_id.data()), key_id.size()});
  const std::filesystem::path dir = std::filesystem::path(key_file).parent_path();
  return ((dir.empty() ? std::filesystem::path(".") : dir) / "heads" / name).string();
}

Result<std::optional<std::string>> ReadKeptHead(const std::string& path) {
  trust::SecureFileOptions options;
  options.max_bytes = 1024;
  auto bytes = trust::ReadSecureFile(path, "kept head", options);
  if (bytes.ok()) return std::optional<std::string>(std::move(*bytes));
  if (bytes.verdict().reason() == trust::Reason::kFileMissing) return std::optional<std::string>();
  return Status(Code::kDenied, bytes.verdict().detail());
}

std::string KeptHeadAdvice(const std::string& file) {
  return " (the head kept in " + file +
         "; if the log was restored from an older copy on purpose, remove that file)";
}

Status AnotherLogOrRollback(const Status& verified, const std::string& file) {
  // Event 1 differs: made anew, or rewritten so as to look so. Only a chain that verifies
  // from its first event to its head is another log.
  if (verified.ok() || verified.code() != Code::kCorruption) return verified;
  return Corruption("the log's first event is not the one this key's writer left here, and "
                    "the log fails verification (" + verified.message() +
                    "): it was rewritten or rolled back" + KeptHeadAdvice(file));
}

std::string OtherLogNote(const log::KeptVerdict& verdict, const std::string& log_dir) {
  return "the log in " + EscapeForTerminal(log_dir) + " is not the one this snapshot key's " +
         "writer left there (that one held events through " +
         std::to_string(verdict.kept.head.sequence) + "; this one's first event differs" +
         " or it is empty): removed and made anew? Its head is kept from now on";
}

Status KeepHeadOutside(log::EventLog& log, const log::SnapshotKey& key, const std::string& file,
                       const std::string& log_dir) {
  const Status prepared = PrepareHeadsDirectory(file);
  auto record = prepared.ok() ? ReadKeptHead(file) : Result<std::optional<std::string>>(prepared);
  if (!record.ok()) {
    Note("the log's head is not kept outside it: %s\n",
         EscapeForTerminal(record.status().message()).c_str());
    return Status::Ok();
  }
  std::optional<std::string_view> stored;
  if (*record) stored = **record;
  auto verdict = log::JudgeKeptHead(stored, key, log.head(),
                                    [&log](uint64_t sequence) { return log.EventHash(sequence); });
  if (!verdict.ok()) {
    if (verdict.status().code() != Code::kCorruption) return verdict.status();
    return Corruption(verdict.status().message() + KeptHeadAdvice(file));
  }
  if (verdict->state == log::KeptState::kOtherLog) {
    LAS_RETURN_IF_ERROR(
        AnotherLogOrRollback(log.head().sequence > 0 ? log.Verify() : Status::Ok(), file));
    Note("%s\n", OtherLogNote(*verdict, log_dir).c_str());
  } else if (verdict->state == log::KeptState::kNone &&
             log.seal_at_open().state == log::SealState::kSealed) {
    // This key sealed the log, yet no head of it was kept for this path: nothing says it
    // is not an older copy (probe DN2).
    // A new log's first head is kept right after its first sync (probe FG3); a server
    // killed in that moment leaves none too (probe FJ3).
    Note("no head of the log in %s was kept beside this snapshot key (the first start since "
         "heads are kept, %s removed, the log moved, copied or restored there from "
         "elsewhere, or the server that made it ended within moments of its first events): a "
         "rollback before now cannot be told; its head is kept from now on\n",
         EscapeForTerminal(log_dir).c_str(), EscapeForTerminal(file).c_str());
  } else if (verdict->state == log::KeptState::kOtherKey) {
    // The file's name carries this key's id: another key's record there is damage.
    Note("the head kept in %s is not this snapshot key's record (damaged?): it is replaced\n",
         EscapeForTerminal(file).c_str());
  }
  RemoveStaleTemporaries(file);
  log.KeepHead(
      [file, key, failing = false](const log::KeptHead& kept) mutable {
        // The keeper's thread only, at most once a second: the directory is made (or found)
        // each time, so that one removed meanwhile is made again before a keep fails. Who
        // may change it was judged once, above: only this user or root can since.
        Status made = EnsureParentDirectory(file);
        if (made.ok()) made = ReplaceFileAtomically(file, log::EncodeKeptHead(kept, key), 0600);
        // Told when keeping stops and when it works again, not at every failed keep.
        if (!made.ok() && !std::exchange(failing, true)) {
          Note("the log's head cannot be kept outside it in %s: %s\n",
               EscapeForTerminal(file).c_str(), EscapeForTerminal(made.message()).c_str());
        } else if (made.ok() && std::exchange(failing, false)) {
          Note("the log's head is kept outside it again, in %s\n", EscapeForTerminal(file).c_str());
        }
      },
      kKeepHeadEveryMicros);
  return Status::Ok();
}

}  // namespace las::tools
