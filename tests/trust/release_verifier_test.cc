// One named test per release attack of issue 3: each fails closed with its reason code
// and leaves the watermark untouched.
#include "trust/release_verifier.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "base/hex.h"
#include "base/unique_fd.h"
#include "tests/trust/trust_test_util.h"
#include "trust/signature_file.h"

namespace las::trust {
namespace {

using testing::ManifestText;
using testing::ReadFile;
using testing::ReleaseDir;
using testing::WriteFile;

class ReleaseVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rel_.TrustOwnKey();
    rel_.Publish(ManifestText(5));
  }

  VerdictOr<AcceptedRelease> Verify() { return ReleaseVerifier(rel_.clock(), options_).Verify(rel_.paths()); }

  void ExpectRejected(Reason reason) {
    VerdictOr<AcceptedRelease> r = Verify();
    ASSERT_FALSE(r.ok()) << "accepted, wanted " << ReasonName(reason);
    EXPECT_EQ(r.verdict().reason(), reason) << r.verdict().ToString();
  }

  // Admits the currently published release and commits its watermark.
  void AdmitAndCommit() {
    VerdictOr<AcceptedRelease> r = Verify();
    ASSERT_TRUE(r.ok()) << r.verdict().ToString();
    Verdict committed = ReleaseVerifier(rel_.clock(), options_).Commit(*r);
    ASSERT_TRUE(committed.ok()) << committed.ToString();
  }

  ReleaseDir rel_;
  SecureFileOptions options_;
};

TEST_F(ReleaseVerifierTest, AcceptsSignedReleaseAndReportsWhatWasVerified) {
  VerdictOr<AcceptedRelease> r = Verify();
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  EXPECT_EQ(r->key_id, KeyIdOf(rel_.key().public_key));
  EXPECT_EQ(r->manifest.sequence, 5u);
  EXPECT_EQ(r->manifest_bytes, ReadFile(rel_.paths().manifest));
  EXPECT_EQ(r->manifest_sha256, Sha256(r->manifest_bytes));
  EXPECT_EQ(r->checked_at_micros, rel_.clock().NowMicros());
  EXPECT_FALSE(r->watermark_file_existed);
  EXPECT_EQ(r->watermark_before, 0u);
  EXPECT_EQ(r->watermark.step, WatermarkStep::kAdvance);
  // Verification alone writes nothing.
  EXPECT_FALSE(std::filesystem::exists(rel_.paths().watermark));
}

TEST_F(ReleaseVerifierTest, WrongKeyIsUnknownKey) {
  KeyPair other = testing::NewKey();
  rel_.Publish(ManifestText(5), &other);
  ExpectRejected(Reason::kUnknownKey);
}

TEST_F(ReleaseVerifierTest, WrongKeyRelabelledWithTrustedKeyIdIsBadSignature) {
  KeyPair other = testing::NewKey();
  const std::string manifest = ManifestText(5);
  rel_.Publish(manifest, &other);
  std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size());
  Ed25519Signature sig = SignRelease(other.secret_key, raw).value();
  rel_.WriteSignatureText(FormatSignatureFile(KeyIdOf(rel_.key().public_key), sig));
  ExpectRejected(Reason::kBadSignature);
}

TEST_F(ReleaseVerifierTest, BadSignatureIsRejected) {
  std::string text = ReadFile(rel_.paths().signature);
  const size_t last_hex = text.size() - 2;  // before the newline
  text[last_hex] = text[last_hex] == '0' ? '1' : '0';
  rel_.WriteSignatureText(text);
  ExpectRejected(Reason::kBadSignature);
}

TEST_F(ReleaseVerifierTest, SignatureOf63BytesIsRejectedBeforeCrypto) {
  std::string text = ReadFile(rel_.paths().signature);
  text.erase(text.size() - 3, 2);  // drop one byte (two hex digits)
  rel_.WriteSignatureText(text);
  ExpectRejected(Reason::kSignatureLength);
}

TEST_F(ReleaseVerifierTest, SignatureOf65BytesIsRejectedBeforeCrypto) {
  std::string text = ReadFile(rel_.paths().signature);
  text.insert(text.size() - 1, "00");
  rel_.WriteSignatureText(text);
  ExpectRejected(Reason::kSignatureLength);
}

TEST_F(ReleaseVerifierTest, RawSignatureWithoutTagIsSignatureFormat) {
  rel_.WriteSignatureText(std::string(64, 'x'));
  ExpectRejected(Reason::kSignatureFormat);
}

TEST_F(ReleaseVerifierTest, OtherAlgorithmTagIsSignatureFormat) {
  std::string text = ReadFile(rel_.paths().signature);
  text.replace(text.find("ed25519"), 7, "ed448xx");
  rel_.WriteSignatureText(text);
  ExpectRejected(Reason::kSignatureFormat);
}

TEST_F(ReleaseVerifierTest, BytesChangedAfterSigningAreBadSignature) {
  std::string manifest = ReadFile(rel_.paths().manifest);
  manifest.replace(manifest.find("\"sequence\": 5"), 13, "\"sequence\": 9");
  WriteFile(rel_.paths().manifest, manifest, 0644);
  ExpectRejected(Reason::kBadSignature);
}

TEST_F(ReleaseVerifierTest, WhitespaceAddedAfterSigningIsBadSignature) {
  WriteFile(rel_.paths().manifest, ReadFile(rel_.paths().manifest) + " ", 0644);
  ExpectRejected(Reason::kBadSignature);
}

TEST_F(ReleaseVerifierTest, ExpiredReleaseIsRejected) {
  rel_.Publish(ManifestText(5, "2025-12-31T23:59:59Z"));
  ExpectRejected(Reason::kExpired);
}

TEST_F(ReleaseVerifierTest, ExpiryInstantItselfIsExpired) {
  rel_.Publish(ManifestText(5, "2026-01-01T00:00:00Z"));
  ExpectRejected(Reason::kExpired);
}

TEST_F(ReleaseVerifierTest, SignedDuplicateSurfaceNamesAreManifestInvalid) {
  std::string manifest = ManifestText(5);
  // Append a second copy of the surface: signed, but the parser refuses it.
  const size_t start = manifest.find("    {");
  const size_t end = manifest.rfind("    }") + 5;
  const std::string surface = manifest.substr(start, end - start);
  manifest.insert(end, ",\n" + surface);
  rel_.Publish(manifest);
  ExpectRejected(Reason::kManifestInvalid);
  // The trusted key signed these bytes: the refusal names the key and the digest (probe AK2).
  RefusedRelease refused;
  ASSERT_FALSE(ReleaseVerifier(rel_.clock(), options_).Verify(rel_.paths(), &refused).ok());
  EXPECT_EQ(refused.key_id, KeyIdOf(rel_.key().public_key));
  EXPECT_EQ(refused.manifest_sha256, Sha256(manifest));
  EXPECT_EQ(refused.sequence, 0u) << "unparsed: no sequence can be trusted";
}

TEST_F(ReleaseVerifierTest, SignedNewerSchemaVersionIsManifestUnsupported) {
  std::string manifest = ManifestText(5);
  manifest.replace(manifest.find("\"schema_version\": 1"), 19, "\"schema_version\": 2");
  rel_.Publish(manifest);
  ExpectRejected(Reason::kManifestUnsupported);
}

TEST_F(ReleaseVerifierTest, RollbackToLowerSequenceIsRejected) {
  AdmitAndCommit();
  rel_.Publish(ManifestText(4));
  ExpectRejected(Reason::kRollback);
}

TEST_F(ReleaseVerifierTest, SameSequenceOtherBytesIsConflict) {
  AdmitAndCommit();
  rel_.Publish(ManifestText(5, "2030-01-01T00:00:00Z", "b"));
  ExpectRejected(Reason::kConflict);
}

TEST_F(ReleaseVerifierTest, SameSequenceSameBytesIsAcceptedAsRestart) {
  AdmitAndCommit();
  const std::string before = ReadFile(rel_.paths().watermark);
  VerdictOr<AcceptedRelease> r = Verify();
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  EXPECT_EQ(r->watermark.step, WatermarkStep::kUnchanged);
  EXPECT_EQ(r->watermark_before, 5u);
  ASSERT_TRUE(ReleaseVerifier(rel_.clock(), options_).Commit(*r).ok());
  EXPECT_EQ(ReadFile(rel_.paths().watermark), before);
}

TEST_F(ReleaseVerifierTest, WatermarkAdvancesOnlyOnCommitAndAtomically) {
  VerdictOr<AcceptedRelease> r = Verify();
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  ASSERT_FALSE(std::filesystem::exists(rel_.paths().watermark));
  ASSERT_TRUE(ReleaseVerifier(rel_.clock(), options_).Commit(*r).ok());
  VerdictOr<Watermarks> w = LoadWatermarks(rel_.paths().watermark);
  ASSERT_TRUE(w.ok()) << w.verdict().ToString();
  const WatermarkEntry* entry = w->Find(r->key_id);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->sequence, 5u);
  EXPECT_EQ(entry->manifest_sha256, r->manifest_sha256);
  struct stat st {};
  ASSERT_EQ(::stat(rel_.paths().watermark.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // No temporary file is left behind.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(rel_.dir().path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 4u);  // manifest, signature, trust store, watermark
}

TEST_F(ReleaseVerifierTest, FailedAdmissionLeavesWatermarkUntouched) {
  AdmitAndCommit();
  const std::string before = ReadFile(rel_.paths().watermark);
  rel_.Publish(ManifestText(6));
  VerdictOr<AcceptedRelease> r = Verify();
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  // The caller's launch or tools/list check fails: it never calls Commit.
  EXPECT_EQ(ReadFile(rel_.paths().watermark), before);
  // So the same sequence 6 is still admissible later (no sequence was burned).
  ASSERT_TRUE(Verify().ok());
}

TEST_F(ReleaseVerifierTest, CommitRedecidesAgainstConcurrentAdvance) {
  rel_.Publish(ManifestText(6));
  VerdictOr<AcceptedRelease> six = Verify();
  ASSERT_TRUE(six.ok());
  rel_.Publish(ManifestText(7));
  AdmitAndCommit();  // another admission moved the watermark to 7 meanwhile
  Verdict late = ReleaseVerifier(rel_.clock(), options_).Commit(*six);
  EXPECT_EQ(late.reason(), Reason::kRollback) << late.ToString();
}

// Two admissions committing at once (probe AK1): while another commit holds the watermark's
// directory, a commit waits, then re-decides against what that one wrote. Unlocked, the
// commit of 6 read the old file during the other's write and its rename lowered the
// watermark.
TEST_F(ReleaseVerifierTest, ACommitWaitsForAnotherHoldingTheWatermarkAndRedecides) {
  rel_.Publish(ManifestText(6));
  VerdictOr<AcceptedRelease> six = Verify();
  ASSERT_TRUE(six.ok()) << six.verdict().ToString();
  const std::string dir = std::filesystem::path(rel_.paths().watermark).parent_path().string();
  UniqueFd other(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_EQ(::flock(other.get(), LOCK_EX), 0);  // the other admission's commit is under way
  Verdict late = Verdict::Accept();
  std::thread commit_six([&] { late = ReleaseVerifier(rel_.clock(), options_).Commit(*six); });
  Watermarks seven;
  seven.by_key[six->key_id] = WatermarkEntry{7, Sha256("another manifest")};
  const Verdict wrote = WriteWatermarksAtomically(rel_.paths().watermark, seven);
  other.Reset();  // its rename is done: it lets go
  commit_six.join();
  ASSERT_TRUE(wrote.ok()) << wrote.ToString();
  EXPECT_EQ(late.reason(), Reason::kRollback) << late.ToString();
  VerdictOr<Watermarks> now = LoadWatermarks(rel_.paths().watermark);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->Find(six->key_id)->sequence, 7u) << "never lowered";
}

TEST_F(ReleaseVerifierTest, KeyRotationStartsNewKeyAtZero) {
  rel_.Publish(ManifestText(1000000));  // a signed far-future sequence
  AdmitAndCommit();
  KeyPair next = testing::NewKey();
  WriteFile(rel_.paths().trust_store,
            SerializeTrustStore(testing::StoreOf({&rel_.key(), &next}, next)), 0600);
  rel_.Publish(ManifestText(1), &next);
  VerdictOr<AcceptedRelease> r = Verify();
  ASSERT_TRUE(r.ok()) << r.verdict().ToString();
  ASSERT_TRUE(ReleaseVerifier(rel_.clock(), options_).Commit(*r).ok());
  VerdictOr<Watermarks> w = LoadWatermarks(rel_.paths().watermark);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->Find(KeyIdOf(next.public_key))->sequence, 1u);
  EXPECT_EQ(w->Find(KeyIdOf(rel_.key().public_key))->sequence, 1000000u);  // kept for audit
}

TEST_F(ReleaseVerifierTest, TrustStoreThatIsASymlinkIsRejected) {
  const std::string real = rel_.dir().Sub("real-trust.json");
  std::filesystem::rename(rel_.paths().trust_store, real);
  std::filesystem::create_symlink(real, rel_.paths().trust_store);
  ExpectRejected(Reason::kFileSymlink);
}

TEST_F(ReleaseVerifierTest, GroupReadableTrustStoreIsRejected) {
  ASSERT_EQ(::chmod(rel_.paths().trust_store.c_str(), 0640), 0);
  ExpectRejected(Reason::kFilePermissions);
}

TEST_F(ReleaseVerifierTest, GroupReadableWatermarkIsRejected) {
  AdmitAndCommit();
  ASSERT_EQ(::chmod(rel_.paths().watermark.c_str(), 0640), 0);
  ExpectRejected(Reason::kFilePermissions);
}

TEST_F(ReleaseVerifierTest, WatermarkOwnedByAnotherUserIsRejected) {
  AdmitAndCommit();
  testing::MakeOwnedByAnotherUser(rel_.paths().watermark, &options_);
  ExpectRejected(Reason::kFileOwner);
}

TEST_F(ReleaseVerifierTest, WatermarkThatIsASymlinkIsRejected) {
  AdmitAndCommit();
  const std::string real = rel_.dir().Sub("real-watermark.json");
  std::filesystem::rename(rel_.paths().watermark, real);
  std::filesystem::create_symlink(real, rel_.paths().watermark);
  ExpectRejected(Reason::kFileSymlink);
}

TEST_F(ReleaseVerifierTest, CorruptWatermarkIsRejectedNotReset) {
  WriteFile(rel_.paths().watermark, "{\"schema_version\":1,\"keys\":{", 0600);
  ExpectRejected(Reason::kWatermarkInvalid);
}

TEST_F(ReleaseVerifierTest, MissingManifestIsFileMissing) {
  std::filesystem::remove(rel_.paths().manifest);
  ExpectRejected(Reason::kFileMissing);
}

}  // namespace
}  // namespace las::trust
