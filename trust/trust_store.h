// The trust store: which Ed25519 public keys this Las knows, and the one it admits
// releases under. Format (strict JSON, documented in docs/RELEASES.md):
//
//   {"schema_version": 1,
//    "keys": [{"key_id": "<16 hex>", "public_key": "<64 lowercase hex>"}, ...],
//    "selected": "<key id>"}
//
// Every key_id must equal KeyIdOf(public_key) (trust/signature.h), key ids are unique,
// public keys are valid prime-order points, and `selected` names exactly one listed key.
// Only the selected key admits releases; the others are kept, admitting nothing, as the
// record of which keys were trusted (rotation): `las replay` verifies a recorded release
// against the key its record carries, and with --trust-store asks that this list holds it.
// Unknown fields are rejected.
//
// The file is read only through ReadSecureFile (trust/secure_file.h): a regular file,
// not a symlink, owned by the current user, mode 0600 or stricter.
//
// Errors: kTrustStoreInvalid for content, the secure_file reasons for the file.
// Thread safety: value types and free functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trust/reason.h"
#include "trust/secure_file.h"
#include "trust/signature.h"

namespace las::trust {

inline constexpr uint32_t kTrustStoreSchemaVersion = 1;
inline constexpr size_t kMaxTrustStoreKeys = 64;
inline constexpr size_t kMaxTrustStoreBytes = 64 * 1024;

struct TrustedKey {
  std::string key_id;  // == KeyIdOf(public_key)
  PublicKey public_key;
};

struct TrustStore {
  std::vector<TrustedKey> keys;  // non-empty, unique key ids
  std::string selected_key_id;   // one of keys[].key_id

  // Borrowed from this store. A parsed store always has its selected key.
  const TrustedKey& selected() const;
  // Borrowed; nullptr if the id is not listed.
  const TrustedKey* Find(std::string_view key_id) const;
};

VerdictOr<TrustStore> ParseTrustStore(std::string_view bytes);
// ReadSecureFile(path, "trust store", options) then ParseTrustStore.
VerdictOr<TrustStore> LoadTrustStore(const std::string& path, const SecureFileOptions& options = {});
// The file text for `store` (for operator tooling and tests). Asserts the store is
// well-formed (ids derived, selection present).
std::string SerializeTrustStore(const TrustStore& store);

}  // namespace las::trust
