#include "tools/snapshot_key_file.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/private_directories.h"
#include "base/unique_fd.h"
#include "trust/launch_policy.h"
#include "trust/secure_file.h"

namespace las::tools {
namespace {

constexpr const char* kWhat = "snapshot key";

Status FromVerdict(const trust::Verdict& verdict) {
  switch (verdict.reason()) {
    case trust::Reason::kFileMissing: return NotFound(verdict.detail());
    case trust::Reason::kFileSymlink:
    case trust::Reason::kFileOwner:
    case trust::Reason::kFilePermissions:
    case trust::Reason::kFileAccessDenied: return Status(Code::kDenied, verdict.detail());
    case trust::Reason::kFileNotRegular:
    case trust::Reason::kFilePathInvalid: return InvalidArgument(verdict.detail());
    case trust::Reason::kFileTooLarge: return Corruption(verdict.detail());
    default: return IoError(verdict.detail());
  }
}

Status Errno(const std::string& what, const std::string& path) {
  return IoError(what + " " + path + ": " + std::strerror(errno));
}

// Writes `key` to a fresh file beside `path` and links it there; EEXIST means another
// process made the key first.
Status LinkNewKey(const std::string& path, const log::SnapshotKey& key, bool& lost_race) {
  std::string temp = path + ".XXXXXX";
  UniqueFd fd(::mkostemp(temp.data(), O_CLOEXEC));  // mode 0600
  if (!fd.valid()) return Errno("creating a file beside", path);
  const bool written = ::write(fd.get(), key.data(), key.size()) ==
                           static_cast<ssize_t>(key.size()) &&
                       ::fsync(fd.get()) == 0;
  Status status = written ? Status::Ok() : Errno("writing", temp);
  if (status.ok() && ::link(temp.c_str(), path.c_str()) != 0) {
    lost_race = errno == EEXIST;
    if (!lost_race) status = Errno("linking the new key to", path);
  }
  ::unlink(temp.c_str());
  return status;
}

}  // namespace

Result<log::SnapshotKey> ReadSnapshotKey(const std::string& path) {
  trust::SecureFileOptions options;
  options.max_bytes = 64;
  auto bytes = trust::ReadSecureFile(path, kWhat, options);
  if (!bytes.ok()) return FromVerdict(bytes.verdict());
  log::SnapshotKey key;
  if (bytes->size() != key.size()) {
    return Corruption("the snapshot key " + path + " is not exactly " +
                      std::to_string(key.size()) + " bytes");
  }
  std::memcpy(key.data(), bytes->data(), key.size());
  return key;
}

Result<log::SnapshotKey> ReadOrCreateSnapshotKey(const std::string& path,
                                                 const RandomFill& fill) {
  auto existing = ReadSnapshotKey(path);
  if (existing.ok() || existing.status().code() != Code::kNotFound) return existing;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    auto made = MakePrivateDirectories(parent.string());
    if (!made.ok()) return IoError(made.status().message());
  }
  log::SnapshotKey key;
  if (fill) {
    fill(key.data(), key.size());
  } else {
    if (sodium_init() < 0) return IoError("libsodium could not initialize");
    randombytes_buf(key.data(), key.size());
  }
  bool lost_race = false;
  Status linked = LinkNewKey(path, key, lost_race);
  if (linked.ok() && !lost_race) return key;
  sodium_memzero(key.data(), key.size());
  if (!linked.ok()) return linked;
  return ReadSnapshotKey(path);  // another process made the key first: use that one
}

std::optional<log::SnapshotKey> UsableSnapshotKey(const std::string& path,
                                                  const std::string& log_dir) {
  if (path.empty() || KeyFileInsideLog(path, log_dir)) return std::nullopt;
  auto key = ReadSnapshotKey(path);
  if (!key.ok()) return std::nullopt;
  return *key;
}

Result<log::SnapshotKey> WriterSealKey(const std::string& path, const std::string& log_dir,
                                       const RandomFill& fill) {
  if (path.empty()) return NotFound("no snapshot key file");
  if (KeyFileInsideLog(path, log_dir)) {
    return Denied(path + " is inside the log directory; keep the key outside");
  }
  return ReadOrCreateSnapshotKey(path, fill);
}

bool KeyFileInsideLog(const std::string& path, const std::string& log_dir) {
  std::error_code ec;
  const auto file = std::filesystem::absolute(path, ec);
  if (ec) return false;
  const auto key = std::filesystem::weakly_canonical(file, ec);
  if (ec) return false;
  const auto root = std::filesystem::weakly_canonical(std::filesystem::absolute(log_dir, ec), ec);
  return !ec && trust::IsInsideDirectory(root.string(), key.string());
}

std::string DefaultSnapshotKeyFile(const std::string& xdg_config_home, const std::string& home) {
  if (!xdg_config_home.empty() && xdg_config_home[0] == '/') {
    return xdg_config_home + "/las/snapshot.key";
  }
  if (!home.empty() && home[0] == '/') return home + "/.config/las/snapshot.key";
  return "";
}

}  // namespace las::tools
