#include "trust/reason.h"

#include <array>

namespace las::trust {
namespace {

struct Named {
  Reason reason;
  std::string_view name;
};

// The stable names. Order follows the enum; a name, once shipped, never changes.
constexpr std::array kNames = {
    Named{Reason::kAccepted, "accepted"},
    Named{Reason::kExpired, "expired"},
    Named{Reason::kRollback, "rollback"},
    Named{Reason::kConflict, "conflict"},
    Named{Reason::kBadSignature, "bad-signature"},
    Named{Reason::kSignatureLength, "signature-length"},
    Named{Reason::kSignatureFormat, "signature-format"},
    Named{Reason::kUnknownKey, "unknown-key"},
    Named{Reason::kManifestInvalid, "manifest-invalid"},
    Named{Reason::kManifestUnsupported, "manifest-unsupported"},
    Named{Reason::kFileSymlink, "file-symlink"},
    Named{Reason::kFileNotRegular, "file-not-regular"},
    Named{Reason::kFileOwner, "file-owner"},
    Named{Reason::kFilePermissions, "file-permissions"},
    Named{Reason::kFileMissing, "file-missing"},
    Named{Reason::kFileTooLarge, "file-too-large"},
    Named{Reason::kIoError, "io-error"},
    Named{Reason::kNotAbsolute, "not-absolute"},
    Named{Reason::kNotConfigured, "not-configured"},
    Named{Reason::kTrustStoreInvalid, "trust-store-invalid"},
    Named{Reason::kWatermarkInvalid, "watermark-invalid"},
    Named{Reason::kSurfaceUnknown, "surface-unknown"},
    Named{Reason::kDigestMismatch, "digest-mismatch"},
    Named{Reason::kWorkspaceEscape, "workspace-escape"},
    Named{Reason::kCommandNotAllowed, "command-not-allowed"},
    Named{Reason::kToolsMismatch, "tools-mismatch"},
    Named{Reason::kCredentialOverride, "credential-override"},
    Named{Reason::kCredentialUnavailable, "credential-unavailable"},
    Named{Reason::kArgumentsInvalid, "arguments-invalid"},
    Named{Reason::kArgumentsSchemaViolation, "arguments-schema-violation"},
    Named{Reason::kPolicyToolNotAllowed, "policy-tool-not-allowed"},
    Named{Reason::kPolicyPinMismatch, "policy-pin-mismatch"},
    Named{Reason::kPolicyForbiddenVerb, "policy-forbidden-verb"},
    Named{Reason::kPolicyUnavailable, "policy-unavailable"},
    Named{Reason::kPolicyInvalid, "policy-invalid"},
    Named{Reason::kSkarbiecTaxonomy, "skarbiec-taxonomy"},
    Named{Reason::kSkarbiecTtl, "skarbiec-ttl"},
    Named{Reason::kSkarbiecUseCount, "skarbiec-use-count"},
    Named{Reason::kSkarbiecDelegationDepth, "skarbiec-delegation-depth"},
    Named{Reason::kSkarbiecResultEnvelope, "skarbiec-result-envelope"},
    Named{Reason::kSkarbiecCredentialInResult, "skarbiec-credential-in-result"},
    Named{Reason::kFinanceConfigIncomplete, "finance-config-incomplete"},
    Named{Reason::kFinanceConfigInvalid, "finance-config-invalid"},
    Named{Reason::kFinanceBinaryMismatch, "finance-binary-mismatch"},
    Named{Reason::kFinancePolicyFingerprint, "finance-policy-fingerprint"},
    Named{Reason::kFinanceNotProposalOnly, "finance-not-proposal-only"},
    Named{Reason::kFileAccessDenied, "file-access-denied"},
    Named{Reason::kCodeNotPinned, "code-not-pinned"},
    Named{Reason::kFilePathInvalid, "file-path-invalid"},
    Named{Reason::kCredentialInManifest, "credential-in-manifest"},
};

// The table is dense and in enum order, so ReasonName can index it.
constexpr bool TableMatchesEnum() {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (static_cast<size_t>(kNames[i].reason) != i) return false;
  }
  return true;
}
static_assert(TableMatchesEnum(), "kNames must list every Reason in enum order");
static_assert(static_cast<size_t>(Reason::kCredentialInManifest) + 1 == kNames.size(),
              "add the new Reason's name to kNames");

}  // namespace

std::string_view ReasonName(Reason reason) {
  const auto index = static_cast<size_t>(reason);
  return index < kNames.size() ? kNames[index].name : std::string_view("unknown-reason");
}

std::optional<Reason> ReasonFromName(std::string_view name) {
  for (const Named& n : kNames) {
    if (n.name == name) return n.reason;
  }
  return std::nullopt;
}

std::string Verdict::ToString() const {
  if (ok()) return "accepted";
  std::string out(ReasonName(reason_));
  if (!detail_.empty()) out += ": " + detail_;
  return out;
}

Status Verdict::ToStatus() const {
  switch (reason_) {
    case Reason::kAccepted:
      return Status::Ok();
    case Reason::kIoError:
      return IoError(ToString());
    case Reason::kFileMissing:
    case Reason::kSurfaceUnknown:
      return NotFound(ToString());
    case Reason::kManifestUnsupported:
      return Unsupported(ToString());
    case Reason::kConflict:
      return Conflict(ToString());
    case Reason::kSignatureFormat:
    case Reason::kSignatureLength:
    case Reason::kManifestInvalid:
    case Reason::kNotAbsolute:
    case Reason::kNotConfigured:
    case Reason::kTrustStoreInvalid:
    case Reason::kWatermarkInvalid:
    case Reason::kArgumentsInvalid:
    case Reason::kArgumentsSchemaViolation:
    case Reason::kFileTooLarge:
    case Reason::kFileNotRegular:  // a directory or a FIFO named where a file belongs
    case Reason::kFilePathInvalid:  // a path under a file, a symlink loop, a name too long
    case Reason::kPolicyInvalid:
    case Reason::kFinanceConfigIncomplete:
    case Reason::kFinanceConfigInvalid:
      return InvalidArgument(ToString());
    default:
      return Denied(ToString());
  }
}

}  // namespace las::trust
