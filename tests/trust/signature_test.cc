#include "trust/signature.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/hex.h"
#include "trust/digest.h"

namespace las::trust {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

const std::vector<uint8_t> kManifest = Bytes(R"({"schema_version":1,"sequence":1})");

KeyPair NewKeyPair() {
  Result<KeyPair> pair = GenerateKeyPair();
  EXPECT_TRUE(pair.ok()) << pair.status().ToString();
  return std::move(pair).value();
}

TEST(Signature, SignedReleaseVerifies) {
  KeyPair pair = NewKeyPair();
  Result<Ed25519Signature> sig = SignRelease(pair.secret_key, kManifest);
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  EXPECT_TRUE(VerifyRelease(pair.public_key, kManifest, *sig).ok());
}

TEST(Signature, WrongKeyIsDenied) {
  KeyPair signer = NewKeyPair();
  KeyPair other = NewKeyPair();
  Ed25519Signature sig = SignRelease(signer.secret_key, kManifest).value();
  Status s = VerifyRelease(other.public_key, kManifest, sig);
  EXPECT_EQ(s.code(), Code::kDenied);
  EXPECT_NE(s.message().find(KeyIdOf(other.public_key)), std::string::npos);
}

TEST(Signature, EveryBitFlipOfManifestBytesIsDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignRelease(pair.secret_key, kManifest).value();
  for (size_t byte = 0; byte < kManifest.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> damaged = kManifest;
      damaged[byte] = static_cast<uint8_t>(damaged[byte] ^ (1u << bit));
      EXPECT_EQ(VerifyRelease(pair.public_key, damaged, sig).code(), Code::kDenied)
          << "byte " << byte << " bit " << bit;
    }
  }
}

TEST(Signature, AppendedOrTruncatedManifestBytesAreDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignRelease(pair.secret_key, kManifest).value();
  std::vector<uint8_t> longer = kManifest;
  longer.push_back(' ');
  std::vector<uint8_t> shorter(kManifest.begin(), kManifest.end() - 1);
  EXPECT_EQ(VerifyRelease(pair.public_key, longer, sig).code(), Code::kDenied);
  EXPECT_EQ(VerifyRelease(pair.public_key, shorter, sig).code(), Code::kDenied);
}

TEST(Signature, BitFlippedSignatureIsDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignRelease(pair.secret_key, kManifest).value();
  sig[10] ^= 0x01;
  EXPECT_EQ(VerifyRelease(pair.public_key, kManifest, sig).code(), Code::kDenied);
}

TEST(Signature, SixtyThreeByteSignatureRejectedBeforeCrypto) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignRelease(pair.secret_key, kManifest).value();
  Status s = VerifyRelease(pair.public_key, kManifest, std::span<const uint8_t>(sig.data(), 63));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("64 bytes, got 63"), std::string::npos) << s.message();
}

TEST(Signature, SixtyFiveByteSignatureRejectedBeforeCrypto) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignRelease(pair.secret_key, kManifest).value();
  std::vector<uint8_t> longer(sig.begin(), sig.end());
  longer.push_back(0);
  Status s = VerifyRelease(pair.public_key, kManifest, longer);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("64 bytes, got 65"), std::string::npos) << s.message();
}

TEST(Signature, EmptySignatureRejectedBeforeCrypto) {
  KeyPair pair = NewKeyPair();
  EXPECT_EQ(VerifyRelease(pair.public_key, kManifest, {}).code(), Code::kInvalidArgument);
}

TEST(Signature, SignatureUnderOtherLabelIsDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig =
      SignEd25519(pair.secret_key, DomainSeparatedMessage("las.other.v1", 1, kManifest)).value();
  EXPECT_EQ(VerifyRelease(pair.public_key, kManifest, sig).code(), Code::kDenied);
}

TEST(Signature, SignatureUnderOtherVersionIsDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig =
      SignEd25519(pair.secret_key, DomainSeparatedMessage(kReleaseSignatureLabel, 2, kManifest))
          .value();
  EXPECT_EQ(VerifyRelease(pair.public_key, kManifest, sig).code(), Code::kDenied);
}

TEST(Signature, SignatureOverBareManifestBytesIsDenied) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignEd25519(pair.secret_key, kManifest).value();
  EXPECT_EQ(VerifyRelease(pair.public_key, kManifest, sig).code(), Code::kDenied);
}

TEST(Signature, DomainSeparatedMessageLayout) {
  const std::vector<uint8_t> m = DomainSeparatedMessage("ab", 0x01020304, Bytes("xyz"));
  const std::vector<uint8_t> expected = {'a', 'b', 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 3,
                                         'x', 'y', 'z'};
  EXPECT_EQ(m, expected);
  const std::vector<uint8_t> release = ReleaseSigningMessage(Bytes("{}"));
  EXPECT_EQ(ToHex(release), ToHex(Bytes("las.release.v1")) + "00" + "00000001" +
                                "0000000000000002" + ToHex(Bytes("{}")));
}

TEST(Signature, NonCanonicalSIsRejected) {
  // S + L verifies under lax verifiers (same point); strict verification must refuse it.
  KeyPair pair = NewKeyPair();
  const std::vector<uint8_t> message = Bytes("m");
  Ed25519Signature sig = SignEd25519(pair.secret_key, message).value();
  static constexpr uint8_t kL[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
                                     0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                                     0,    0,    0,    0,    0,    0,    0,    0,
                                     0,    0,    0,    0,    0,    0,    0,    0x10};
  unsigned carry = 0;
  for (size_t i = 0; i < 32; ++i) {
    const unsigned sum = sig[32 + i] + kL[i] + carry;
    sig[32 + i] = static_cast<uint8_t>(sum);
    carry = sum >> 8;
  }
  EXPECT_FALSE(VerifyEd25519(pair.public_key.bytes, message, sig));
}

TEST(Signature, KeyIdIsDerivedFromPublicKey) {
  KeyPair pair = NewKeyPair();
  const std::string id = KeyIdOf(pair.public_key);
  EXPECT_EQ(id.size(), kKeyIdHexChars);
  std::vector<uint8_t> input = Bytes(kKeyIdLabel);
  input.insert(input.end(), pair.public_key.bytes.begin(), pair.public_key.bytes.end());
  EXPECT_EQ(id, Sha256Hex(Sha256(input)).substr(0, 16));
  EXPECT_NE(id, KeyIdOf(NewKeyPair().public_key));
}

TEST(Signature, SecretKeyRoundTripsThroughBytes) {
  KeyPair pair = NewKeyPair();
  const auto raw = pair.secret_key.bytes();
  Result<SecretKey> copy = SecretKey::FromBytes(std::vector<uint8_t>(raw.begin(), raw.end()));
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->public_key(), pair.public_key);
  Ed25519Signature sig = SignRelease(*copy, kManifest).value();
  EXPECT_TRUE(VerifyRelease(pair.public_key, kManifest, sig).ok());
}

TEST(Signature, SecretKeyWithForeignPublicHalfIsRejected) {
  KeyPair a = NewKeyPair();
  KeyPair b = NewKeyPair();
  std::vector<uint8_t> raw(a.secret_key.bytes().begin(), a.secret_key.bytes().end());
  std::copy(b.public_key.bytes.begin(), b.public_key.bytes.end(), raw.begin() + 32);
  EXPECT_EQ(SecretKey::FromBytes(raw).status().code(), Code::kInvalidArgument);
}

TEST(Signature, SecretKeyOfWrongLengthIsRejected) {
  EXPECT_EQ(SecretKey::FromBytes(std::vector<uint8_t>(32)).status().code(), Code::kInvalidArgument);
}

TEST(Signature, MovedFromSecretKeyIsWiped) {
  KeyPair pair = NewKeyPair();
  SecretKey moved = std::move(pair.secret_key);
  const auto old = pair.secret_key.bytes();  // NOLINT(bugprone-use-after-move): checking the wipe
  EXPECT_TRUE(std::all_of(old.begin(), old.end(), [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(moved.public_key(), pair.public_key);
}

TEST(Signature, PublicKeyFromBytesRejectsWrongLengthAndSmallOrderPoints) {
  EXPECT_EQ(PublicKey::FromBytes(std::vector<uint8_t>(31)).status().code(), Code::kInvalidArgument);
  std::vector<uint8_t> identity(32, 0);
  identity[0] = 1;  // the neutral element, order 1
  EXPECT_EQ(PublicKey::FromBytes(identity).status().code(), Code::kInvalidArgument);
  KeyPair pair = NewKeyPair();
  Result<PublicKey> same = PublicKey::FromBytes(pair.public_key.bytes);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, pair.public_key);
}

TEST(Signature, VerifyEd25519RejectsWrongLengths) {
  KeyPair pair = NewKeyPair();
  Ed25519Signature sig = SignEd25519(pair.secret_key, Bytes("m")).value();
  EXPECT_TRUE(VerifyEd25519(pair.public_key.bytes, Bytes("m"), sig));
  EXPECT_FALSE(VerifyEd25519(std::span<const uint8_t>(pair.public_key.bytes.data(), 31),
                             Bytes("m"), sig));
  EXPECT_FALSE(VerifyEd25519(pair.public_key.bytes, Bytes("m"),
                             std::span<const uint8_t>(sig.data(), 63)));
}

}  // namespace
}  // namespace las::trust
