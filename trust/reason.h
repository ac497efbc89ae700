// Admission verdicts: why trust/ refused something, as a stable reason code plus a human
// detail.
//
// Every admission check in trust/ (release signature, trust store, watermark, file
// permissions, launch policy, live tools/list, credential templates) answers with a
// Verdict: accepted, or rejected with one Reason. tools/ turns rejections into
// ReleaseRejected / SurfaceRejected / ToolCallDenied events, so the reason *names* are part
// of the event format and of `las check --json`: add new reasons only at the end, never
// renumber, never rename (docs/RELEASES.md lists them).
//
// A detail is for operators: it names paths, key ids, sequences, digests and tool names.
// It never carries a secret value (credential values, private keys, environment values).
//
// Thread safety: plain value types; copies are independent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "base/value_or.h"

namespace las::trust {

enum class Reason : int {
  kAccepted = 0,
  // Release signature and manifest.
  kExpired = 1,             // now >= expires_at
  kRollback = 2,            // sequence below the key's watermark
  kConflict = 3,            // sequence equal to the watermark, other manifest bytes
  kBadSignature = 4,        // Ed25519 verification failed
  kSignatureLength = 5,     // signature is not exactly 64 bytes (checked before crypto)
  kSignatureFormat = 6,     // signature file malformed or names another algorithm
  kUnknownKey = 7,          // the signature's key id is not the trust store's selected key
  kManifestInvalid = 8,     // signed bytes that are not a valid manifest
  kManifestUnsupported = 9, // a schema_version this build does not read
  // Files that hold trust (trust store, watermark) and release files.
  kFileSymlink = 10,        // the final path component is a symbolic link
  kFileNotRegular = 11,     // a directory, FIFO, device, socket
  kFileOwner = 12,          // not owned by the expected user
  kFilePermissions = 13,    // group or other permission bits set
  kFileMissing = 14,
  kFileTooLarge = 15,
  kIoError = 16,            // the operating system failed (errno in the detail)
  kNotAbsolute = 17,        // a configured path is relative
  kNotConfigured = 18,      // a required environment variable is unset or empty
  kTrustStoreInvalid = 19,
  kWatermarkInvalid = 20,
  // Launch-time checks.
  kSurfaceUnknown = 21,     // the manifest does not bind a surface of that name
  kDigestMismatch = 22,     // binary or code bytes differ from the signed digest
  kWorkspaceEscape = 23,    // cwd or code path resolves outside LAS_WORKSPACE
  kCommandNotAllowed = 24,  // command outside the workspace and not an allowed interpreter
  // Live tools and calls.
  kToolsMismatch = 25,      // live tools/list differs from the signed bindings
  kCredentialOverride = 26, // a call supplied a value for a credential-templated argument
  kCredentialUnavailable = 27,  // the resolver has no value for a templated credential
  kArgumentsInvalid = 28,   // call arguments are not a strict JSON object
  kArgumentsSchemaViolation = 29,  // call arguments fail the tool's signed inputSchema
  // Special surface policies (docs/POLICIES.md): local rules a signature cannot override.
  kPolicyToolNotAllowed = 30,     // a tool outside the surface's local allowlist / pinned set
  kPolicyPinMismatch = 31,        // a pinned tool's schema/description digest differs
  kPolicyForbiddenVerb = 32,      // a finance tool name carries a forbidden verb
  kPolicyUnavailable = 33,        // a local policy file the rule needs is missing or unusable
  kPolicyInvalid = 34,            // a local policy file is malformed
  kSkarbiecTaxonomy = 35,         // purpose/resource/target outside the bounded taxonomy
  kSkarbiecTtl = 36,              // ttl_seconds missing, not an integer, or not 1..60
  kSkarbiecUseCount = 37,         // use_count is not exactly 1
  kSkarbiecDelegationDepth = 38,  // delegation_depth is not exactly 0
  kSkarbiecResultEnvelope = 39,   // a result outside the tool's exact envelope
  kSkarbiecCredentialInResult = 40,  // a result that looks like it carries a credential
  kFinanceConfigIncomplete = 41,  // some but not all finance variables are set
  kFinanceConfigInvalid = 42,     // a finance variable is malformed (digest spelling)
  kFinanceBinaryMismatch = 43,    // the launched code is not LAS_FINANCE_BINARY_SHA256
  kFinancePolicyFingerprint = 44, // the policy file's canonical SHA-256 differs
  kFinanceNotProposalOnly = 45,   // the policy file does not declare proposal-only mode
  // Files again (added later; numbers never change).
  kFileAccessDenied = 46,  // the operating system refused this user access (EACCES, EPERM)
  // An interpreter command whose script the release does not pin: no code binding, an
  // option before the script that may load other code, or a code path that is not the
  // script the interpreter runs (trust/interpreter_argv.h).
  kCodeNotPinned = 47,
  // A path that cannot name a file as written: a part of it that should be a directory is
  // a file (ENOTDIR), a loop of symbolic links (ELOOP), a name too long (ENAMETOOLONG). The
  // operator's mistake, where io-error is the system's failure (base/path_error.h).
  kFilePathInvalid = 48,
  // A signed manifest that holds the value of a credential or secret variable its surfaces
  // are given (a tool named with it, a command argument): the log records a release's
  // manifest, so such a release is refused whole (tools/federation.h; probe JY1).
  kCredentialInManifest = 49,
};

// Stable kebab-case name: "rollback", "bad-signature", "file-permissions", "accepted".
std::string_view ReasonName(Reason reason);
// The inverse of ReasonName (for replay and tests); nullopt for an unknown name.
std::optional<Reason> ReasonFromName(std::string_view name);

// Accepted, or rejected with a reason and a detail. Mirrors las::Status.
class [[nodiscard]] Verdict {
 public:
  Verdict() = default;  // accepted
  Verdict(Reason reason, std::string detail) : reason_(reason), detail_(std::move(detail)) {}

  static Verdict Accept() { return {}; }

  bool ok() const { return reason_ == Reason::kAccepted; }
  Reason reason() const { return reason_; }
  std::string_view reason_name() const { return ReasonName(reason_); }
  const std::string& detail() const { return detail_; }
  // "rollback: sequence 6 is below the watermark 7 of key 0123abcd...", or "accepted".
  std::string ToString() const;
  // For callers that cross a module boundary with las::Status: kDenied for policy and
  // signature refusals, kIo for kIoError, kNotFound for kFileMissing, kInvalidArgument
  // for malformed input, kUnsupported, kConflict for kConflict. The message is
  // ToString(), so the reason name survives.
  Status ToStatus() const;

 private:
  Reason reason_ = Reason::kAccepted;
  std::string detail_;
};

inline Verdict Reject(Reason reason, std::string detail) { return {reason, std::move(detail)}; }

// A value or a rejection (base/value_or.h); value() of a rejection is a programming
// error (asserted).
template <typename T>
class [[nodiscard]] VerdictOr : public ValueOr<T, Verdict> {
 public:
  using ValueOr<T, Verdict>::ValueOr;
  const Verdict& verdict() const { return this->error(); }
};

}  // namespace las::trust

// Early return of a rejected Verdict from the enclosing function.
#define LAS_RETURN_IF_REJECTED(expr)                 \
  do {                                               \
    ::las::trust::Verdict las_verdict_ = (expr);     \
    if (!las_verdict_.ok()) return las_verdict_;     \
  } while (0)
