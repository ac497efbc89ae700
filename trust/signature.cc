#include "trust/signature.h"

#include <sodium.h>

#include <cassert>
#include <cstring>

#include "base/hex.h"
#include "trust/digest.h"
#include "trust/sodium_init.h"

namespace las::trust {

static_assert(kEd25519PublicKeyBytes == crypto_sign_PUBLICKEYBYTES);
static_assert(kEd25519SecretKeyBytes == crypto_sign_SECRETKEYBYTES);
static_assert(kEd25519SignatureBytes == crypto_sign_BYTES);

namespace {

// True if the little-endian 32-byte scalar `s` is below the group order
// L = 2^252 + 27742317777372353535851937790883648493. libsodium 1.0.18 already refuses
// S >= L (sc25519_is_canonical) unless built with ED25519_COMPAT; checking here too keeps
// signatures non-malleable whatever libsodium build we are linked against.
bool IsCanonicalScalar(std::span<const uint8_t> s) {
  static constexpr uint8_t kL[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
                                     0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10};
  for (size_t i = 32; i-- > 0;) {
    if (s[i] != kL[i]) return s[i] < kL[i];
  }
  return false;  // equal to L
}

void PutBigEndian(uint64_t value, size_t width, std::vector<uint8_t>& out) {
  for (size_t i = width; i-- > 0;) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

}  // namespace

Result<PublicKey> PublicKey::FromBytes(std::span<const uint8_t> raw) {
  if (raw.size() != kEd25519PublicKeyBytes) {
    return InvalidArgument("an Ed25519 public key is 32 bytes, got " + std::to_string(raw.size()));
  }
  if (crypto_core_ed25519_is_valid_point(raw.data()) != 1) {
    return InvalidArgument("not a valid Ed25519 public key (non-canonical or small-order point)");
  }
  PublicKey key;
  std::memcpy(key.bytes.data(), raw.data(), raw.size());
  return key;
}

std::string KeyIdOf(const PublicKey& key) {
  std::vector<uint8_t> input(kKeyIdLabel.begin(), kKeyIdLabel.end());
  input.insert(input.end(), key.bytes.begin(), key.bytes.end());
  const Sha256Digest digest = Sha256(input);
  return ToHex(std::span<const uint8_t>(digest.data(), kKeyIdHexChars / 2));
}

SecretKey::SecretKey(SecretKey&& other) noexcept : bytes_(other.bytes_) {
  sodium_memzero(other.bytes_.data(), other.bytes_.size());
}

SecretKey& SecretKey::operator=(SecretKey&& other) noexcept {
  if (this != &other) {
    bytes_ = other.bytes_;
    sodium_memzero(other.bytes_.data(), other.bytes_.size());
  }
  return *this;
}

SecretKey::~SecretKey() { sodium_memzero(bytes_.data(), bytes_.size()); }

PublicKey SecretKey::public_key() const {
  PublicKey pk;
  crypto_sign_ed25519_sk_to_pk(pk.bytes.data(), bytes_.data());
  return pk;
}

Result<SecretKey> SecretKey::FromBytes(std::span<const uint8_t> raw) {
  if (raw.size() != kEd25519SecretKeyBytes) {
    return InvalidArgument("an Ed25519 secret key is 64 bytes, got " + std::to_string(raw.size()));
  }
  uint8_t derived_pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t derived_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_seed_keypair(derived_pk, derived_sk, raw.data());  // seed = first 32 bytes
  const bool consistent = sodium_memcmp(derived_pk, raw.data() + 32, sizeof derived_pk) == 0;
  sodium_memzero(derived_sk, sizeof derived_sk);
  if (!consistent) {
    return InvalidArgument("secret key's public half does not match its seed");
  }
  SecretKey key;
  std::memcpy(key.bytes_.data(), raw.data(), raw.size());
  return key;
}

Result<KeyPair> GenerateKeyPair() {
  LAS_RETURN_IF_ERROR(internal::EnsureSodium());
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_keypair(pk, sk);
  Result<SecretKey> secret = SecretKey::FromBytes(sk);
  sodium_memzero(sk, sizeof sk);
  if (!secret.ok()) return secret.status();
  Result<PublicKey> public_key = PublicKey::FromBytes(pk);
  if (!public_key.ok()) return public_key.status();
  return KeyPair{*public_key, std::move(secret).value()};
}

std::vector<uint8_t> DomainSeparatedMessage(std::string_view label, uint32_t version,
                                            std::span<const uint8_t> payload) {
  assert(label.find('\0') == std::string_view::npos);
  std::vector<uint8_t> out;
  out.reserve(label.size() + 1 + 4 + 8 + payload.size());
  out.insert(out.end(), label.begin(), label.end());
  out.push_back(0);
  PutBigEndian(version, 4, out);
  PutBigEndian(payload.size(), 8, out);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::vector<uint8_t> ReleaseSigningMessage(std::span<const uint8_t> manifest_bytes) {
  return DomainSeparatedMessage(kReleaseSignatureLabel, kReleaseSignatureVersion, manifest_bytes);
}

Result<Ed25519Signature> SignEd25519(const SecretKey& key, std::span<const uint8_t> message) {
  Ed25519Signature signature;
  crypto_sign_detached(signature.data(), nullptr, message.data(), message.size(),
                       key.bytes().data());
  // minisign's rule: never hand out a signature that was not checked.
  const PublicKey pk = key.public_key();
  if (!VerifyEd25519(pk.bytes, message, signature)) {
    return Corruption("a freshly made signature does not verify");
  }
  return signature;
}

Result<Ed25519Signature> SignRelease(const SecretKey& key, std::span<const uint8_t> manifest_bytes) {
  return SignEd25519(key, ReleaseSigningMessage(manifest_bytes));
}

bool VerifyEd25519(std::span<const uint8_t> public_key, std::span<const uint8_t> message,
                   std::span<const uint8_t> signature) {
  if (public_key.size() != kEd25519PublicKeyBytes) return false;
  if (signature.size() != kEd25519SignatureBytes) return false;
  if (!IsCanonicalScalar(signature.subspan(32))) return false;
  // libsodium 1.0.18 (built without ED25519_COMPAT, as Debian's is) also rejects a
  // non-canonical or small-order A, a small-order R, and compares the recomputed R with
  // the encoded R byte for byte, which rejects non-canonical R encodings. With that it
  // agrees with every Wycheproof case (tests/trust/wycheproof_test.cc proves it).
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(),
                                     public_key.data()) == 0;
}

Status VerifyRelease(const PublicKey& key, std::span<const uint8_t> manifest_bytes,
                     std::span<const uint8_t> signature) {
  if (signature.size() != kEd25519SignatureBytes) {
    return InvalidArgument("a release signature is 64 bytes, got " +
                           std::to_string(signature.size()));
  }
  if (!VerifyEd25519(key.bytes, ReleaseSigningMessage(manifest_bytes), signature)) {
    return Denied("release signature does not verify under key " + KeyIdOf(key));
  }
  return Status::Ok();
}

}  // namespace las::trust
