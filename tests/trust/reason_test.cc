#include "trust/reason.h"

#include <gtest/gtest.h>

namespace las::trust {
namespace {

TEST(TrustReason, NamesAreStableAndRoundTrip) {
  EXPECT_EQ(ReasonName(Reason::kExpired), "expired");
  EXPECT_EQ(ReasonName(Reason::kRollback), "rollback");
  EXPECT_EQ(ReasonName(Reason::kConflict), "conflict");
  EXPECT_EQ(ReasonName(Reason::kBadSignature), "bad-signature");
  EXPECT_EQ(ReasonName(Reason::kSignatureLength), "signature-length");
  EXPECT_EQ(ReasonName(Reason::kUnknownKey), "unknown-key");
  EXPECT_EQ(ReasonName(Reason::kFilePermissions), "file-permissions");
  EXPECT_EQ(ReasonName(Reason::kNotAbsolute), "not-absolute");
  EXPECT_EQ(ReasonName(Reason::kManifestInvalid), "manifest-invalid");
  EXPECT_EQ(ReasonName(Reason::kDigestMismatch), "digest-mismatch");
  EXPECT_EQ(ReasonName(Reason::kToolsMismatch), "tools-mismatch");
  EXPECT_EQ(ReasonName(Reason::kWorkspaceEscape), "workspace-escape");
  EXPECT_EQ(ReasonName(Reason::kCommandNotAllowed), "command-not-allowed");
  EXPECT_EQ(ReasonName(Reason::kCredentialOverride), "credential-override");
  for (int i = 0; i <= static_cast<int>(Reason::kFilePathInvalid); ++i) {
    const auto r = static_cast<Reason>(i);
    EXPECT_EQ(ReasonFromName(ReasonName(r)), r) << i;
  }
  EXPECT_EQ(ReasonFromName("nonsense"), std::nullopt);
}

TEST(TrustReason, VerdictToStringAndStatus) {
  Verdict v = Reject(Reason::kRollback, "sequence 3 is below 4");
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.ToString(), "rollback: sequence 3 is below 4");
  EXPECT_EQ(v.ToStatus().code(), Code::kDenied);
  EXPECT_EQ(Reject(Reason::kIoError, "x").ToStatus().code(), Code::kIo);
  EXPECT_EQ(Reject(Reason::kFileAccessDenied, "x").ToStatus().code(), Code::kDenied);
  // A path under a file, a symlink loop, a name too long: the operator's to fix (exit 2).
  EXPECT_EQ(ReasonName(Reason::kFilePathInvalid), "file-path-invalid");
  EXPECT_EQ(Reject(Reason::kFilePathInvalid, "x").ToStatus().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Verdict::Accept().ToStatus().ok());
  EXPECT_EQ(Verdict::Accept().ToString(), "accepted");
}

}  // namespace
}  // namespace las::trust
