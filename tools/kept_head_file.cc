#include "tools/kept_head_file.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "base/durable_files.h"
#include "base/hex.h"
#include "base/note.h"
#include "base/printable_text.h"
#include "base/sha256.h"
#include "trust/secure_file.h"

namespace las::tools {
namespace {

constexpr size_t kNameHexDigits = 32;

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

std::string OtherLogNote(const log::KeptVerdict& verdict, const std::string& log_dir) {
  return "the log in " + EscapeForTerminal(log_dir) + " is not the one this snapshot key's " +
         "writer left there (that one held events through " +
         std::to_string(verdict.kept.head.sequence) + "; this one's first event differs" +
         " or it is empty): removed and made anew? Its head is kept from now on";
}

Status KeepHeadOutside(log::EventLog& log, const log::SnapshotKey& key, const std::string& file,
                       const std::string& log_dir) {
  auto record = ReadKeptHead(file);
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
    // Event 1 differs: made anew, or rewritten so as to look so. Only a chain that verifies
    // from its first event to its head is another log.
    if (log.head().sequence > 0) {
      if (Status verified = log.Verify(); !verified.ok()) {
        if (verified.code() != Code::kCorruption) return verified;
        return Corruption("the log's first event is not the one this key's writer left here, "
                          "and the log fails verification (" + verified.message() +
                          "): it was rewritten or rolled back" + KeptHeadAdvice(file));
      }
    }
    Note("%s\n", OtherLogNote(*verdict, log_dir).c_str());
  } else if (verdict->state == log::KeptState::kOtherKey) {
    // The file's name carries this key's id: another key's record there is damage.
    Note("the head kept in %s is not this snapshot key's record (damaged?): it is replaced\n",
         EscapeForTerminal(file).c_str());
  }
  log.KeepHead(
      [file, key, told = false](const log::KeptHead& kept) mutable {
        // The keeper's thread only, at most once a second: the directory is made (or found)
        // each time, so that one removed meanwhile is made again before a keep fails.
        Status made = EnsureParentDirectory(file);
        if (made.ok()) made = ReplaceFileAtomically(file, log::EncodeKeptHead(kept, key), 0600);
        if (!made.ok() && !std::exchange(told, true)) {
          Note("the log's head cannot be kept outside it: %s\n",
               EscapeForTerminal(made.message()).c_str());
        }
      },
      kKeepHeadEveryMicros);
  return Status::Ok();
}

}  // namespace las::tools
