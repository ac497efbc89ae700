// Ed25519 keys and detached signatures (libsodium), and the domain-separated message a
// release signature covers.
//
// A release signature signs, never the manifest bytes alone, but:
//
//   "las.release.v1" 0x00 | version: uint32 big-endian (= 1) | length: uint64 big-endian
//   | the raw manifest bytes
//
// The label keeps a release signature from being valid for any other Las message (or any
// other program's), the version lets the scheme change without ambiguity, the length
// makes the framing unambiguous. Verification runs over the raw bytes before anything
// parses them; callers then parse exactly those bytes.
//
// Key id: the first 8 bytes of SHA-256("las.keyid.v1" || public key), as 16 lowercase hex
// characters. It names a key in trust stores, watermarks and events; it is derived, so it
// cannot disagree with the key it names.
//
// Errors: malformed inputs (lengths, encodings) are InvalidArgument and are rejected
// before any cryptography; a signature that does not verify is Denied.
// Thread safety: free functions and value types; a SecretKey is not shared between
// threads by design (move it where it is needed).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace las::trust {

inline constexpr size_t kEd25519PublicKeyBytes = 32;
inline constexpr size_t kEd25519SecretKeyBytes = 64;  // libsodium layout: seed || public key
inline constexpr size_t kEd25519SignatureBytes = 64;
inline constexpr std::string_view kReleaseSignatureLabel = "las.release.v1";
inline constexpr uint32_t kReleaseSignatureVersion = 1;
inline constexpr std::string_view kKeyIdLabel = "las.keyid.v1";
inline constexpr size_t kKeyIdHexChars = 16;

using Ed25519Signature = std::array<uint8_t, kEd25519SignatureBytes>;

struct PublicKey {
  std::array<uint8_t, kEd25519PublicKeyBytes> bytes{};

  // InvalidArgument unless `raw` is 32 bytes encoding a canonical point of the prime-order
  // subgroup (crypto_core_ed25519_is_valid_point): honest keys always are; small-order and
  // mixed-order keys admit signatures that verify for many messages.
  static Result<PublicKey> FromBytes(std::span<const uint8_t> raw);

  bool operator==(const PublicKey&) const = default;
};

// 16 lowercase hex characters; see the header comment.
std::string KeyIdOf(const PublicKey& key);

// An Ed25519 secret key. Move-only; the bytes are wiped (sodium_memzero) when the key is
// destroyed or moved from.
class SecretKey {
 public:
  // `raw` must be 64 bytes, seed || public key, and the public half must be the one the
  // seed derives (a mismatched pair would sign with one key while claiming another).
  // InvalidArgument otherwise. The caller should wipe its own copy of `raw`.
  static Result<SecretKey> FromBytes(std::span<const uint8_t> raw);

  SecretKey(SecretKey&& other) noexcept;
  SecretKey& operator=(SecretKey&& other) noexcept;
  SecretKey(const SecretKey&) = delete;
  SecretKey& operator=(const SecretKey&) = delete;
  ~SecretKey();

  // Borrowed; valid while this key lives. For writing a key file, nothing else.
  std::span<const uint8_t, kEd25519SecretKeyBytes> bytes() const { return bytes_; }
  PublicKey public_key() const;

 private:
  SecretKey() = default;
  std::array<uint8_t, kEd25519SecretKeyBytes> bytes_{};
};

struct KeyPair {
  PublicKey public_key;
  SecretKey secret_key;
};

// A fresh key pair from libsodium's CSPRNG. Unsupported if libsodium cannot initialize.
Result<KeyPair> GenerateKeyPair();

// label || 0x00 || uint32 BE version || uint64 BE payload length || payload.
// `label` must not contain NUL (asserted).
std::vector<uint8_t> DomainSeparatedMessage(std::string_view label, uint32_t version,
                                            std::span<const uint8_t> payload);
// DomainSeparatedMessage(kReleaseSignatureLabel, kReleaseSignatureVersion, manifest_bytes).
std::vector<uint8_t> ReleaseSigningMessage(std::span<const uint8_t> manifest_bytes);

// Detached signature over `message` exactly. The signature is verified against the key's
// public half before it is returned; Corruption if it does not (broken key or memory).
Result<Ed25519Signature> SignEd25519(const SecretKey& key, std::span<const uint8_t> message);
// SignEd25519(key, ReleaseSigningMessage(manifest_bytes)).
Result<Ed25519Signature> SignRelease(const SecretKey& key, std::span<const uint8_t> manifest_bytes);

// Plain RFC 8032 verification of `signature` over `message` under `public_key` (raw
// bytes, any lengths: wrong lengths are false). Strict: rejects S >= L (malleability),
// non-canonical and small-order R and A, as libsodium 1.0.18 does; agrees with all 151
// Wycheproof ed25519_test.json cases.
bool VerifyEd25519(std::span<const uint8_t> public_key, std::span<const uint8_t> message,
                   std::span<const uint8_t> signature);

// Ok if `signature` is a release signature by `key` over `manifest_bytes`.
// InvalidArgument if the signature is not exactly 64 bytes (checked before any crypto);
// Denied if it does not verify.
Status VerifyRelease(const PublicKey& key, std::span<const uint8_t> manifest_bytes,
                     std::span<const uint8_t> signature);

}  // namespace las::trust
