// The detached release signature file: one line of text that names its algorithm and
// its key before any cryptography happens (as minisign does).
//
//   las-release-signature-v1 ed25519 <key id: 16 lowercase hex> <signature: 128 lowercase hex>\n
//
// Four fields separated by single spaces; the trailing newline is optional; nothing else
// (no other whitespace, no comments). At most kMaxSignatureFileBytes. Parsing checks, in
// this order and before any crypto:
//
//   size bound, field count, format tag   -> kSignatureFormat
//   algorithm tag == "ed25519"            -> kSignatureFormat ("unsupported algorithm")
//   key id shape (16 lowercase hex)       -> kSignatureFormat
//   signature hex well-formed             -> kSignatureFormat
//   decoded signature exactly 64 bytes    -> kSignatureLength
//
// The verifier then compares the key id with the trust store's selected key
// (kUnknownKey) and only then verifies. Naming the key lets an operator see at once that a
// release was signed with the wrong key instead of getting "bad signature".
//
// The signed message is ReleaseSigningMessage(manifest bytes) (trust/signature.h).
// Thread safety: free functions, value types.
#pragma once

#include <string>
#include <string_view>

#include "trust/reason.h"
#include "trust/signature.h"

namespace las::trust {

inline constexpr std::string_view kSignatureFileTag = "las-release-signature-v1";
inline constexpr std::string_view kSignatureAlgorithmEd25519 = "ed25519";
inline constexpr size_t kMaxSignatureFileBytes = 512;

struct SignatureFile {
  std::string key_id;
  Ed25519Signature signature{};
};

VerdictOr<SignatureFile> ParseSignatureFile(std::string_view text);
// The file text (with trailing newline) for `key_id` and `signature`.
std::string FormatSignatureFile(std::string_view key_id, const Ed25519Signature& signature);

}  // namespace las::trust
