// Helpers for trust/ admission tests: real files with chosen modes, real libsodium keys,
// and a release directory (manifest, signature, trust store, watermark) to attack.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "tests/support/temp_dir.h"
#include "trust/release_paths.h"
#include "trust/signature.h"
#include "trust/trust_store.h"

namespace las::trust::testing {

// Writes `content` to `path` (replacing it) and sets `mode` exactly.
void WriteFile(const std::string& path, const std::string& content, mode_t mode = 0600);
std::string ReadFile(const std::string& path);
// Replaces `path` by renaming a new file over it (a new inode, as an attacker would).
void ReplaceFile(const std::string& path, const std::string& content, mode_t mode);

KeyPair NewKey();
TrustStore StoreOf(const std::vector<const KeyPair*>& keys, const KeyPair& selected);

// A uid that does not own files this process creates, and options expecting the real
// owner: when running as root a file is chowned to 65534; otherwise the expected uid is
// injected as someone else.
void MakeOwnedByAnotherUser(const std::string& path, struct SecureFileOptions* options);

int64_t Micros(const std::string& rfc3339);

// A manifest with one surface, sequence `sequence`, expiry `expires_at`; `tag` varies
// the bytes for the same sequence.
std::string ManifestText(uint64_t sequence, const std::string& expires_at = "2030-01-01T00:00:00Z",
                         const std::string& tag = "a");

class ReleaseDir {
 public:
  ReleaseDir();
  const ReleasePaths& paths() const { return paths_; }
  const KeyPair& key() const { return key_; }
  ManualClock& clock() { return clock_; }
  const las::testing::TempDir& dir() const { return dir_; }

  // Writes the trust store selecting key() (0600).
  void TrustOwnKey();
  // Writes `manifest` and its signature file by `signer` (default key()).
  void Publish(const std::string& manifest, const KeyPair* signer = nullptr);
  void WriteSignatureText(const std::string& text);

 private:
  las::testing::TempDir dir_;
  KeyPair key_;
  ReleasePaths paths_;
  ManualClock clock_;
};

}  // namespace las::trust::testing
