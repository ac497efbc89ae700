#include "trust/watermark.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>

#include "base/path_error.h"
#include "base/write_fully.h"
#include "trust/signature.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using internal::Json;

Verdict Bad(const std::string& why) {
  return Reject(Reason::kWatermarkInvalid, "watermark: " + why);
}

Verdict IoFailure(const std::string& what, const std::string& path) {
  const int err = errno;
  if (std::string mistake = PathMistake(err); !mistake.empty()) {
    return Reject(Reason::kFilePathInvalid, what + " " + path + ": " + mistake);
  }
  return Reject(Reason::kIoError, what + " " + path + ": " + std::strerror(err));
}

bool IsKeyIdShape(std::string_view id) {
  if (id.size() != kKeyIdHexChars) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

VerdictOr<Watermarks> ParseValue(const Json& root) {
  if (!root.is_object()) return Bad("$ must be an object");
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() != "schema_version" && it.key() != "keys") return Bad("$." + it.key() + ": unknown field");
  }
  auto version = root.find("schema_version");
  if (version == root.end() || !version->is_number_unsigned() ||
      version->get<uint64_t>() != kWatermarkSchemaVersion) {
    return Bad("$.schema_version must be the integer " + std::to_string(kWatermarkSchemaVersion));
  }
  auto keys = root.find("keys");
  if (keys == root.end() || !keys->is_object()) return Bad("$.keys must be an object");
  Watermarks out;
  out.file_existed = true;
  for (auto it = keys->begin(); it != keys->end(); ++it) {
    const std::string where = "$.keys." + it.key();
    if (!IsKeyIdShape(it.key())) return Bad(where + ": not a key id (16 lowercase hex)");
    const Json& e = *it;
    if (!e.is_object()) return Bad(where + " must be an object");
    for (auto f = e.begin(); f != e.end(); ++f) {
      if (f.key() != "sequence" && f.key() != "manifest_sha256") return Bad(where + "." + f.key() + ": unknown field");
    }
    auto seq = e.find("sequence");
    auto sha = e.find("manifest_sha256");
    if (seq == e.end() || !seq->is_number_unsigned() || seq->get<uint64_t>() < 1) {
      return Bad(where + ".sequence must be a positive integer");
    }
    if (sha == e.end() || !sha->is_string()) return Bad(where + ".manifest_sha256 must be a string");
    std::optional<Sha256Digest> digest = Sha256FromHex(sha->get<std::string>());
    if (!digest) return Bad(where + ".manifest_sha256 must be 64 lowercase hex characters");
    out.by_key.emplace(it.key(), WatermarkEntry{seq->get<uint64_t>(), *digest});
  }
  return out;
}

}  // namespace

const WatermarkEntry* Watermarks::Find(std::string_view key_id) const {
  auto it = by_key.find(std::string(key_id));
  return it == by_key.end() ? nullptr : &it->second;
}

VerdictOr<WatermarkStep> DecideWatermark(const Watermarks& watermarks, std::string_view key_id,
                                         uint64_t sequence, const Sha256Digest& manifest_sha256) {
  const WatermarkEntry* current = watermarks.Find(key_id);
  const uint64_t at = current ? current->sequence : 0;
  const std::string key(key_id);
  if (sequence < at) {
    return Reject(Reason::kRollback, "sequence " + std::to_string(sequence) +
                                         " is below the watermark " + std::to_string(at) +
                                         " of key " + key);
  }
  if (current != nullptr && sequence == at) {
    if (current->manifest_sha256 == manifest_sha256) return WatermarkStep::kUnchanged;
    return Reject(Reason::kConflict,
                  "sequence " + std::to_string(sequence) + " of key " + key +
                      " was already admitted with manifest sha256 " +
                      Sha256Hex(current->manifest_sha256) + "; these bytes hash to " +
                      Sha256Hex(manifest_sha256) + " (sign the change with a higher sequence)");
  }
  return WatermarkStep::kAdvance;
}

VerdictOr<Watermarks> ParseWatermarks(std::string_view bytes) {
  return internal::ParseStrictDocument<Watermarks>(bytes, kMaxWatermarkBytes,
                                                   Reason::kWatermarkInvalid, "watermark",
                                                   ParseValue);
}

VerdictOr<Watermarks> LoadWatermarks(const std::string& path, const SecureFileOptions& options) {
  SecureFileOptions bounded = options;
  if (bounded.max_bytes > kMaxWatermarkBytes) bounded.max_bytes = kMaxWatermarkBytes;
  VerdictOr<std::string> bytes = ReadSecureFile(path, "watermark", bounded);
  if (!bytes.ok()) {
    if (bytes.verdict().reason() == Reason::kFileMissing) return Watermarks{};
    return bytes.verdict();
  }
  return ParseWatermarks(*bytes);
}

std::string SerializeWatermarks(const Watermarks& watermarks) {
  Json keys = Json::object();
  for (const auto& [key_id, entry] : watermarks.by_key) {
    keys[key_id] = Json{{"sequence", entry.sequence},
                        {"manifest_sha256", Sha256Hex(entry.manifest_sha256)}};
  }
  return Json{{"schema_version", kWatermarkSchemaVersion}, {"keys", std::move(keys)}}.dump(2) + "\n";
}

namespace {

// The watermark's directory, and a new temporary file beside the watermark in it (same
// directory, so rename(2) is atomic: one filesystem); `temp` gets the file's name.
std::string WatermarkDir(const std::string& path) {
  const std::filesystem::path target(path);
  return target.parent_path().empty() ? "." : target.parent_path().string();
}
UniqueFd CreateTemporaryBeside(const std::string& path, std::string& temp) {
  temp = WatermarkDir(path) + "/." + std::filesystem::path(path).filename().string() +
         ".tmp-XXXXXX";
  return UniqueFd(::mkostemp(temp.data(), O_CLOEXEC));  // O_EXCL, mode 0600
}

// The watermark's directory, open for reading: what its fsync and the commit's lock need.
VerdictOr<UniqueFd> OpenWatermarkDir(const std::string& path) {
  const std::string dir = WatermarkDir(path);
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return IoFailure("opening the watermark directory", dir);
  return fd;
}

// WriteWatermarksAtomically, with the directory already open when `open_dir` is given (the
// commit's, locked).
Verdict ReplaceWatermark(const std::string& path, const Watermarks& watermarks,
                         const UniqueFd* open_dir) {
  const std::string dir = WatermarkDir(path);
  std::string temp;
  UniqueFd fd = CreateTemporaryBeside(path, temp);
  if (!fd.valid()) return IoFailure("creating a temporary file in", dir);
  bool keep_temp = false;
  struct Cleanup {  // remove the temporary file on every failure path
    const std::string& name;
    const bool& keep;
    ~Cleanup() { if (!keep) ::unlink(name.c_str()); }
  } cleanup{temp, keep_temp};

  // mkostemp already uses 0600; fchmod makes it independent of the libc's choice.
  if (::fchmod(fd.get(), 0600) != 0) return IoFailure("chmod", temp);
  if (WriteFully(fd.get(), SerializeWatermarks(watermarks)) != 0) return IoFailure("writing", temp);
  if (::fsync(fd.get()) != 0) return IoFailure("fsync", temp);
  if (::close(fd.Release()) != 0) return IoFailure("close", temp);
  if (::rename(temp.c_str(), path.c_str()) != 0) return IoFailure("renaming the new watermark onto", path);
  keep_temp = true;  // it is the watermark now
  // The rename is durable only once the directory entry is.
  UniqueFd own_dir;
  if (open_dir == nullptr) {
    VerdictOr<UniqueFd> opened = OpenWatermarkDir(path);
    if (!opened.ok()) return opened.verdict();
    own_dir = std::move(*opened);
    open_dir = &own_dir;
  }
  if (::fsync(open_dir->get()) != 0) return IoFailure("fsync of the watermark directory", dir);
  return Verdict::Accept();
}

}  // namespace

Verdict CheckWatermarkWritable(const std::string& path) {
  // What the commit will need: the directory open for reading (its lock, and the fsync
  // that makes the rename durable; probe AN1), and a temporary file to rename.
  VerdictOr<UniqueFd> dir = OpenWatermarkDir(path);
  if (!dir.ok()) return dir.verdict();
  std::string temp;
  UniqueFd fd = CreateTemporaryBeside(path, temp);
  if (!fd.valid()) return IoFailure("creating a temporary file in", WatermarkDir(path));
  ::unlink(temp.c_str());
  return Verdict::Accept();
}

Verdict WriteWatermarksAtomically(const std::string& path, const Watermarks& watermarks) {
  return ReplaceWatermark(path, watermarks, nullptr);
}

namespace {

// An exclusive flock(2) on the watermark's directory, held from the re-read to the rename:
// admissions of several Las processes sharing one watermark commit one at a time (probe
// AK1: two unlocked commits could each read the old file, and the later rename lowered
// the watermark). The file itself is replaced by rename, so its inode cannot carry the
// lock. A filesystem without flock (ENOLCK, EOPNOTSUPP) commits unlocked, as before.
// Bounded: a stopped process must not hold every later admission forever. Returns the
// directory, open (locked where the filesystem can), for the commit's fsync.
VerdictOr<UniqueFd> LockWatermarkDir(const std::string& path) {
  const std::string dir = WatermarkDir(path);
  VerdictOr<UniqueFd> fd = OpenWatermarkDir(path);
  if (!fd.ok()) return fd;
  constexpr int kPauseMs = 10;
  for (int waited_ms = 0;; waited_ms += kPauseMs) {
    if (::flock(fd->get(), LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno == ENOLCK || errno == EOPNOTSUPP) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      return IoFailure("locking the watermark directory", dir);
    }
    if (waited_ms >= kWatermarkLockWaitMs) {
      return Reject(Reason::kIoError, "the watermark directory " + dir +
                                          " stayed locked by another las admission for " +
                                          std::to_string(kWatermarkLockWaitMs / 1000) + " s");
    }
    const timespec pause{0, kPauseMs * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace

Verdict CommitWatermark(const PendingWatermark& pending, const SecureFileOptions& options) {
  VerdictOr<UniqueFd> lock = LockWatermarkDir(pending.path);
  if (!lock.ok()) return lock.verdict();
  VerdictOr<Watermarks> current = LoadWatermarks(pending.path, options);
  if (!current.ok()) return current.verdict();
  VerdictOr<WatermarkStep> step =
      DecideWatermark(*current, pending.key_id, pending.next.sequence, pending.next.manifest_sha256);
  if (!step.ok()) return step.verdict();
  if (*step == WatermarkStep::kUnchanged) return Verdict::Accept();
  current->by_key[pending.key_id] = pending.next;
  return ReplaceWatermark(pending.path, *current, &*lock);
}

}  // namespace las::trust
