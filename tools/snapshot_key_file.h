// The file that holds the key sealing this user's projection snapshots (log/snapshot.h;
// log/FORMAT.md §Snapshots). It lives outside every log directory — by default
// $XDG_CONFIG_HOME/las/snapshot.key, else ~/.config/las/snapshot.key — so that write access
// to a log directory alone cannot make a snapshot the server restores.
//
// The file is exactly 32 raw bytes, owned by this user, mode 0600 (no group or other bits),
// not a symbolic link (the checks of trust/secure_file.h).
//
// Thread safety: free functions; concurrent creators of one path end with one key (the
// first to link its file wins; the others read it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "log/snapshot.h"

namespace las::tools {

// Fills `size` bytes with secret randomness (default: libsodium's CSPRNG).
using RandomFill = std::function<void(uint8_t* bytes, size_t size)>;

// The key in `path`. kNotFound when there is no such file; kDenied when it is
// not this user's, is readable or writable by others, or is a symbolic link; kCorruption
// when it is not exactly 32 bytes; kIo for other read failures. Messages name the path.
Result<log::SnapshotKey> ReadSnapshotKey(const std::string& path);

// ReadSnapshotKey, or — when there is no file yet — a new key from `fill` written to
// `path` (its missing parent directories are made 0700). The file appears complete or not
// at all: it is written to a temporary name in the same directory and linked into place.
Result<log::SnapshotKey> ReadOrCreateSnapshotKey(const std::string& path,
                                                 const RandomFill& fill = {});

// The key in `path` when ReadSnapshotKey gives one and `path` does not resolve into the log
// directory `log_dir` (KeyFileInsideLog); nullopt for "" and for any failure. For a reader
// that may start from a snapshot (projections::FoldFromNewestSnapshot) and folds the whole
// log without one: the result is the same either way, so a missing or unusable key is no
// error there.
std::optional<log::SnapshotKey> UsableSnapshotKey(const std::string& path,
                                                  const std::string& log_dir);

// The key a writer of the log in `log_dir` seals its head with (log/head_seal.h): the key
// in `path`, made when there is none yet (ReadOrCreateSnapshotKey), so that a log is sealed
// from its first event. kNotFound for "" (no key file: snapshots and seals are off);
// kDenied when `path` resolves into the log directory (KeyFileInsideLog); otherwise
// ReadOrCreateSnapshotKey's errors.
Result<log::SnapshotKey> WriterSealKey(const std::string& path, const std::string& log_dir,
                                       const RandomFill& fill = {});

// Whether the key file `path` (made or not; relative to the working directory) resolves
// into the log directory `log_dir`: whoever may write the log could replace it, and a
// snapshot sealed with their key would be restored (probe DC3). Such a key is not used.
bool KeyFileInsideLog(const std::string& path, const std::string& log_dir);

// $XDG_CONFIG_HOME/las/snapshot.key when XDG_CONFIG_HOME is absolute, else
// `home`/.config/las/snapshot.key; "" when `home` is not absolute either.
std::string DefaultSnapshotKeyFile(const std::string& xdg_config_home, const std::string& home);

}  // namespace las::tools
