#include "trust/trust_store.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "tests/trust/trust_test_util.h"

namespace las::trust {
namespace {

using testing::NewKey;
using testing::StoreOf;

Reason ParseReason(const std::string& text) {
  VerdictOr<TrustStore> s = ParseTrustStore(text);
  return s.ok() ? Reason::kAccepted : s.verdict().reason();
}

TEST(TrustStore, RoundTripsAndSelectsOneKey) {
  KeyPair a = NewKey();
  KeyPair b = NewKey();
  VerdictOr<TrustStore> s = ParseTrustStore(SerializeTrustStore(StoreOf({&a, &b}, b)));
  ASSERT_TRUE(s.ok()) << s.verdict().ToString();
  EXPECT_EQ(s->keys.size(), 2u);
  EXPECT_EQ(s->selected().public_key, b.public_key);
  EXPECT_EQ(s->selected().key_id, KeyIdOf(b.public_key));
  EXPECT_NE(s->Find(KeyIdOf(a.public_key)), nullptr);
}

TEST(TrustStore, KeyIdThatDoesNotMatchItsKeyIsRejected) {
  KeyPair a = NewKey();
  KeyPair b = NewKey();
  const std::string text = "{\"schema_version\":1,\"keys\":[{\"key_id\":\"" + KeyIdOf(b.public_key) +
                           "\",\"public_key\":\"" + ToHex(a.public_key.bytes) + "\"}],\"selected\":\"" +
                           KeyIdOf(b.public_key) + "\"}";
  EXPECT_EQ(ParseReason(text), Reason::kTrustStoreInvalid);
}

TEST(TrustStore, SelectedKeyMustBeListed) {
  KeyPair a = NewKey();
  KeyPair b = NewKey();
  std::string text = SerializeTrustStore(StoreOf({&a}, a));
  text.replace(text.find(KeyIdOf(a.public_key), text.find("selected")), 16, KeyIdOf(b.public_key));
  EXPECT_EQ(ParseReason(text), Reason::kTrustStoreInvalid);
}

TEST(TrustStore, RejectsDuplicatesUnknownFieldsAndUppercaseHex) {
  KeyPair a = NewKey();
  const std::string id = KeyIdOf(a.public_key);
  const std::string hex = ToHex(a.public_key.bytes);
  const std::string entry = "{\"key_id\":\"" + id + "\",\"public_key\":\"" + hex + "\"}";
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"keys\":[" + entry + "," + entry + "],\"selected\":\"" + id + "\"}"),
            Reason::kTrustStoreInvalid);
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"keys\":[" + entry + "],\"selected\":\"" + id + "\",\"x\":1}"),
            Reason::kTrustStoreInvalid);
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"keys\":[{\"key_id\":\"" + id + "\",\"public_key\":\"" + upper +
                        "\"}],\"selected\":\"" + id + "\"}"),
            Reason::kTrustStoreInvalid);
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"keys\":[],\"selected\":\"" + id + "\"}"), Reason::kTrustStoreInvalid);
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"schema_version\":1}"), Reason::kTrustStoreInvalid);
}

TEST(TrustStore, SmallOrderPublicKeyIsRejected) {
  // The identity point (small order) must never be trusted.
  std::array<uint8_t, 32> identity{};
  identity[0] = 1;
  const std::string hex = ToHex(identity);
  EXPECT_EQ(ParseReason("{\"schema_version\":1,\"keys\":[{\"key_id\":\"0000000000000000\",\"public_key\":\"" +
                        hex + "\"}],\"selected\":\"0000000000000000\"}"),
            Reason::kTrustStoreInvalid);
}

TEST(TrustStore, LoadsOnlyThroughSecureFile) {
  las::testing::TempDir dir;
  KeyPair a = NewKey();
  testing::WriteFile(dir.Sub("t"), SerializeTrustStore(StoreOf({&a}, a)), 0644);
  VerdictOr<TrustStore> s = LoadTrustStore(dir.Sub("t"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.verdict().reason(), Reason::kFilePermissions);
}

}  // namespace
}  // namespace las::trust
