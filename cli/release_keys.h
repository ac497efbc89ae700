// The release key files that `las release keygen` writes and `las release sign` reads.
// One line of text each, minisign-style: a format tag, the algorithm, the key id (so an
// operator can tell keys apart without exposing anything), the key in lowercase hex.
//
//   secret key (mode 0600):  las-secret-key-v1 ed25519 <key id> <128 hex: seed || public key>
//   public key (any mode):   las-public-key-v1 ed25519 <key id> <64 hex>
//
// The key id must equal KeyIdOf(public key) (trust/signature.h) and, for a secret key,
// the public half must be the one its seed derives; anything else is refused.
//
// A secret key file is read only through trust::ReadSecureFile: a regular file, not a
// symlink, owned by the current user, no group or other permission bits. Secret material
// is wiped (explicit_bzero) from every buffer this code owns once the key is built; it is
// never put into a message.
//
// Errors: Status with the trust verdict's reason in the message for file checks
// ("file-permissions: ..."); InvalidArgument for malformed content.
// Thread safety: free functions.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "trust/signature.h"

namespace las::cli {

inline constexpr std::string_view kSecretKeyTag = "las-secret-key-v1";
inline constexpr std::string_view kPublicKeyTag = "las-public-key-v1";

// The file texts (with a trailing newline). The secret text holds key material: the
// caller wipes it after writing.
std::string FormatSecretKeyFile(const trust::SecretKey& key);
std::string FormatPublicKeyFile(const trust::PublicKey& key);

Result<trust::SecretKey> ReadSecretKeyFile(const std::string& path);
Result<trust::PublicKey> ParsePublicKeyFile(std::string_view text);
Result<trust::PublicKey> ReadPublicKeyFile(const std::string& path);

// explicit_bzero of the whole string's buffer.
void Wipe(std::string& secret);

}  // namespace las::cli
