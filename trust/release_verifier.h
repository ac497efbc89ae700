// The release check: is the release named by the four release variables one this Las
// may admit right now? Answers with an AcceptedRelease or a rejection Verdict; it never
// writes anything (moving the watermark is CommitWatermark, called by the admitting
// code once its whole admission — launch checks, live tools/list — has succeeded).
//
// Order of checks (each failure is final, nothing later runs):
//   1. one clock reading: the admission's check time (expiry uses only it)
//   2. trust store, through ReadSecureFile          -> secure_file reasons, trust-store-invalid
//   3. signature file: bounded read, tag, algorithm, key id shape, hex, length
//                                                    -> signature-format, signature-length
//   4. its key id == the store's selected key id    -> unknown-key
//   5. manifest bytes: bounded read (kMaxManifestBytes)
//   6. Ed25519 over ReleaseSigningMessage(raw bytes) -> bad-signature
//   7. parse exactly those bytes                     -> manifest-invalid, manifest-unsupported
//   8. expiry at the check time                      -> expired
//   9. watermark, through ReadSecureFile, decided for (key id, sequence, sha256(bytes))
//                                                    -> rollback, conflict, secure_file reasons
//
// Thread safety: a ReleaseVerifier holds only a borrowed clock and options; Verify may
// be called from several threads if the clock allows it (the system clocks do).
#pragma once

#include <string>

#include "base/clock.h"
#include "trust/digest.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/release_paths.h"
#include "trust/secure_file.h"
#include "trust/signature.h"
#include "trust/watermark.h"

namespace las::trust {

struct AcceptedRelease {
  Manifest manifest;              // parsed from exactly manifest_bytes
  std::string manifest_bytes;     // the raw signed bytes (for ReleaseAccepted and replay)
  Ed25519Signature signature{};
  std::string signature_file;     // the signature file text as read
  std::string key_id;             // the selected key that verified it
  PublicKey public_key;
  Sha256Digest manifest_sha256{}; // of manifest_bytes
  int64_t checked_at_micros = 0;  // the admission's one clock reading
  bool watermark_file_existed = false;
  uint64_t watermark_before = 0;  // this key's sequence before (0: no entry)
  PendingWatermark watermark;     // give to CommitWatermark after admission succeeded
};

// A verified release that was refused after its signature verified.
struct RefusedRelease {
  std::string key_id;
  uint64_t sequence = 0;  // 0: the signed bytes are not a manifest this Las can parse
  Sha256Digest manifest_sha256{};
};

class ReleaseVerifier {
 public:
  // `clock` is borrowed and must outlive the verifier. `secure_options` applies to the
  // trust store and the watermark (expected owner).
  explicit ReleaseVerifier(const WallClock& clock, SecureFileOptions secure_options = {})
      : clock_(clock), secure_options_(secure_options) {}

  // `refused`, when given, learns which release a refusal concerns once its signature has
  // verified (manifest-invalid or -unsupported: key and digest, sequence 0; expired,
  // rollback, conflict, an unreadable watermark); it is left alone for a refusal before
  // that, when nothing about the release can be trusted.
  VerdictOr<AcceptedRelease> Verify(const ReleasePaths& paths,
                                    RefusedRelease* refused = nullptr) const;

  // Verify at an explicit check time (for callers that already took the admission's
  // clock reading, and for `las release verify --at`). Memory that ran out while verifying
  // (base/out_of_memory.h) makes the verdict io-error, never one about the release.
  VerdictOr<AcceptedRelease> VerifyAt(const ReleasePaths& paths, int64_t now_micros,
                                      RefusedRelease* refused = nullptr) const;

  // Whether `release` can be admitted as verified: one that would advance the watermark
  // needs a watermark that can move (CheckWatermarkWritable), or admission would serve it
  // unrecorded; accepted at once when the watermark stays. Admission asks it before
  // launching anything; the onboarding journey asks it so its verdict is admission's.
  static Verdict CheckCanAdvance(const AcceptedRelease& release);

  // CommitWatermark(release.watermark, the verifier's secure options).
  Verdict Commit(const AcceptedRelease& release) const;

 private:
  VerdictOr<AcceptedRelease> VerifyUnwatched(const ReleasePaths& paths, int64_t now_micros,
                                             RefusedRelease* refused) const;

  const WallClock& clock_;
  SecureFileOptions secure_options_;
};

}  // namespace las::trust
