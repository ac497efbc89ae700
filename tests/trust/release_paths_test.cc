#include "trust/release_paths.h"

#include <gtest/gtest.h>

#include "trust/signature_file.h"

namespace las::trust {
namespace {

Environment AllSet() {
  return {{"LAS_RELEASE_MANIFEST", "/etc/las/manifest.json"},
          {"LAS_RELEASE_SIGNATURE", "/etc/las/manifest.sig"},
          {"LAS_TRUST_STORE", "/home/op/.config/las/trust.json"},
          {"LAS_RELEASE_WATERMARK", "/home/op/.local/state/las/watermark.json"},
          {"UNRELATED", "x"}};
}

TEST(ReleasePaths, ReadsAllFourAbsolutePaths) {
  VerdictOr<ReleasePaths> p = ReleasePathsFromEnvironment(AllSet());
  ASSERT_TRUE(p.ok()) << p.verdict().ToString();
  EXPECT_EQ(p->manifest, "/etc/las/manifest.json");
  EXPECT_EQ(p->signature, "/etc/las/manifest.sig");
  EXPECT_EQ(p->trust_store, "/home/op/.config/las/trust.json");
  EXPECT_EQ(p->watermark, "/home/op/.local/state/las/watermark.json");
}

TEST(ReleasePaths, EachRelativePathIsNotAbsolute) {
  for (const char* name : {"LAS_RELEASE_MANIFEST", "LAS_RELEASE_SIGNATURE", "LAS_TRUST_STORE",
                           "LAS_RELEASE_WATERMARK"}) {
    for (const char* value : {"manifest.json", "./x", "../x", "~/x"}) {
      Environment env = AllSet();
      env[name] = value;
      VerdictOr<ReleasePaths> p = ReleasePathsFromEnvironment(env);
      ASSERT_FALSE(p.ok()) << name << "=" << value;
      EXPECT_EQ(p.verdict().reason(), Reason::kNotAbsolute) << p.verdict().ToString();
      EXPECT_NE(p.verdict().detail().find(name), std::string::npos);
      EXPECT_EQ(p.verdict().detail().find(value), std::string::npos) << "never repeated";
    }
  }
}

// A key pasted where its path belongs is not repeated in the refusal, which reaches stderr
// and the log (probe CO1); a blank before the path, the likely slip, is named.
TEST(ReleasePaths, ARelativeValueIsNeverRepeated) {
  const std::string secret = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  Verdict refused = CheckAbsolutePath("LAS_FINANCE_KEY", secret);
  EXPECT_EQ(refused.reason(), Reason::kNotAbsolute);
  EXPECT_EQ(refused.detail(),
            "LAS_FINANCE_KEY is a relative path; it must be absolute (start with \"/\")");
  EXPECT_EQ(CheckAbsolutePath("LAS_WORKSPACE", " /srv/ws").detail(),
            "LAS_WORKSPACE is a relative path; it must be absolute (start with \"/\"): it "
            "starts with a blank");
  EXPECT_TRUE(CheckAbsolutePath("LAS_WORKSPACE", "/srv/ws").ok());
}

TEST(ReleasePaths, UnsetOrEmptyIsNotConfigured) {
  Environment env = AllSet();
  env.erase("LAS_TRUST_STORE");
  EXPECT_EQ(ReleasePathsFromEnvironment(env).verdict().reason(), Reason::kNotConfigured);
  env = AllSet();
  env["LAS_RELEASE_WATERMARK"] = "";
  EXPECT_EQ(ReleasePathsFromEnvironment(env).verdict().reason(), Reason::kNotConfigured);
}

const std::string kId = "0123456789abcdef";
const std::string kSig(128, 'a');

Reason SigReason(const std::string& text) {
  VerdictOr<SignatureFile> s = ParseSignatureFile(text);
  return s.ok() ? Reason::kAccepted : s.verdict().reason();
}

TEST(ReleaseSignatureFile, ParsesTheOneLineFormat) {
  VerdictOr<SignatureFile> s = ParseSignatureFile("las-release-signature-v1 ed25519 " + kId + " " + kSig + "\n");
  ASSERT_TRUE(s.ok()) << s.verdict().ToString();
  EXPECT_EQ(s->key_id, kId);
  EXPECT_EQ(s->signature[0], 0xaa);
  Ed25519Signature sig{};
  sig[63] = 7;
  VerdictOr<SignatureFile> back = ParseSignatureFile(FormatSignatureFile(kId, sig));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->signature, sig);
}

// A valid line saved with Windows line endings or a blank line after it is refused for
// what it is, not as a signature that is not lowercase hex.
TEST(ReleaseSignatureFile, LineEndingsAndExtraLinesAreNamed) {
  const std::string line = "las-release-signature-v1 ed25519 " + kId + " " + kSig;
  for (const std::string& text : {line + "\r\n", line + "\n\n", line + "\n\nmore\n"}) {
    VerdictOr<SignatureFile> s = ParseSignatureFile(text);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.verdict().reason(), Reason::kSignatureFormat);
    EXPECT_EQ(s.verdict().detail().find("lowercase hex"), std::string::npos) << s.verdict().detail();
    EXPECT_NE(s.verdict().detail().find("line"), std::string::npos) << s.verdict().detail();
  }
}

TEST(ReleaseSignatureFile, LengthIsCheckedAfterTagsBeforeCrypto) {
  EXPECT_EQ(SigReason("las-release-signature-v1 ed25519 " + kId + " " + std::string(126, 'a')),
            Reason::kSignatureLength);
  EXPECT_EQ(SigReason("las-release-signature-v1 ed25519 " + kId + " " + std::string(130, 'a')),
            Reason::kSignatureLength);
  EXPECT_EQ(SigReason("las-release-signature-v1 ed25519 " + kId + " "), Reason::kSignatureLength);
}

TEST(ReleaseSignatureFile, MalformedFilesAreSignatureFormat) {
  const std::string good_tail = " " + kId + " " + kSig;
  for (const std::string& text : {
           std::string(64, '\x01'),                                    // raw bytes
           "las-release-signature-v2 ed25519" + good_tail,             // unknown format
           "las-release-signature-v1 Ed25519" + good_tail,             // algorithm spelling
           "las-release-signature-v1 ed25519 0123456789ABCDEF " + kSig,  // uppercase id
           "las-release-signature-v1 ed25519 0123 " + kSig,             // short id
           "las-release-signature-v1 ed25519" + good_tail + " extra",  // 5 fields
           "las-release-signature-v1  ed25519" + good_tail,            // double space
           "las-release-signature-v1 ed25519" + good_tail + "\n\n",    // two newlines
           "las-release-signature-v1 ed25519 " + kId + " " + std::string(128, 'A'),
           "las-release-signature-v1 ed25519 " + kId + " " + std::string(1000, 'a'),
       }) {
    EXPECT_EQ(SigReason(text), Reason::kSignatureFormat) << text.substr(0, 80);
  }
}

// An odd count of lowercase hex digits is told as such, not as hex that is not lowercase
// (probe EH5).
TEST(ReleaseSignatureFile, AnOddNumberOfHexDigitsIsToldAsSuch) {
  VerdictOr<SignatureFile> odd =
      ParseSignatureFile("las-release-signature-v1 ed25519 " + kId + " " + std::string(127, 'a'));
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.verdict().reason(), Reason::kSignatureFormat);
  EXPECT_NE(odd.verdict().detail().find("odd number of hex digits"), std::string::npos)
      << odd.verdict().detail();
  VerdictOr<SignatureFile> upper =
      ParseSignatureFile("las-release-signature-v1 ed25519 " + kId + " " + std::string(128, 'A'));
  ASSERT_FALSE(upper.ok());
  EXPECT_NE(upper.verdict().detail().find("lowercase hex"), std::string::npos)
      << upper.verdict().detail();
}

}  // namespace
}  // namespace las::trust
