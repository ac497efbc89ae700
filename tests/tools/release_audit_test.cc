// Re-verifying a recorded release (tools/release_audit.h): every field the event derives
// from the signed bytes must agree with them.
#include "tools/release_audit.h"

#include <gtest/gtest.h>

#include "tools/decision_events.h"
#include "trust/digest.h"
#include "trust/manifest.h"
#include "trust/manifest_writer.h"
#include "trust/release_verifier.h"
#include "trust/signature.h"

namespace las::tools {
namespace {

class ReleaseAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto keys = trust::GenerateKeyPair();
    ASSERT_TRUE(keys.ok());
    trust::Manifest manifest;
    manifest.sequence = 3;
    manifest.expires_at_micros = 1'900'000'000'000'000;
    const std::string bytes = trust::SerializeManifest(manifest);
    auto parsed = trust::ParseManifest({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto signature = trust::SignRelease(
        keys->secret_key, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    ASSERT_TRUE(signature.ok());
    release_.manifest = *parsed;
    release_.manifest_bytes.assign(bytes.begin(), bytes.end());
    release_.signature = *signature;
    release_.public_key = keys->public_key;
    release_.key_id = trust::KeyIdOf(keys->public_key);
    release_.manifest_sha256 = trust::Sha256(bytes);
  }

  Status Audit() {
    log::EventDraft draft = ReleaseAcceptedEvent(release_);
    log::StoredEvent event;
    event.envelope.assign(draft.envelope.begin(), draft.envelope.end());
    return AuditRecordedRelease(event);
  }

  trust::AcceptedRelease release_;
};

TEST_F(ReleaseAuditTest, ARecordAsAcceptedVerifies) { EXPECT_TRUE(Audit().ok()) << Audit().ToString(); }

TEST_F(ReleaseAuditTest, ADigestOrExpiryThatTheBytesDoNotSayIsCorruption) {
  release_.manifest_sha256[0] ^= 1;
  EXPECT_EQ(Audit().code(), Code::kCorruption);
  EXPECT_NE(Audit().message().find("manifest_sha256"), std::string::npos) << Audit().ToString();
  release_.manifest_sha256[0] ^= 1;
  release_.manifest.expires_at_micros += 1'000'000;
  EXPECT_EQ(Audit().code(), Code::kCorruption);
  EXPECT_NE(Audit().message().find("expires_at"), std::string::npos) << Audit().ToString();
}

}  // namespace
}  // namespace las::tools
