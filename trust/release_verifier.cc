#include "trust/release_verifier.h"

#include <new>
#include <span>

#include "base/out_of_memory.h"
#include "trust/signature_file.h"
#include "trust/trust_store.h"

namespace las::trust {

VerdictOr<AcceptedRelease> ReleaseVerifier::Verify(const ReleasePaths& paths,
                                                   RefusedRelease* refused) const {
  return VerifyAt(paths, clock_.NowMicros(), refused);
}

VerdictOr<AcceptedRelease> ReleaseVerifier::VerifyAt(const ReleasePaths& paths,
                                                     int64_t now_micros,
                                                     RefusedRelease* refused) const {
  return UnlessMemoryRanOut(
      [&] { return VerifyUnwatched(paths, now_micros, refused); },
      [] {
        return VerdictOr<AcceptedRelease>(
            Reject(Reason::kIoError, OutOfMemory("verifying the release").message()));
      });
}

VerdictOr<AcceptedRelease> ReleaseVerifier::VerifyUnwatched(const ReleasePaths& paths,
                                                            int64_t now_micros,
                                                            RefusedRelease* refused) const {
  VerdictOr<TrustStore> store = LoadTrustStore(paths.trust_store, secure_options_);
  if (!store.ok()) return store.verdict();
  const TrustedKey& key = store->selected();

  VerdictOr<std::string> signature_text =
      ReadBoundedFile(paths.signature, "signature file", kMaxSignatureFileBytes);
  if (!signature_text.ok()) return signature_text.verdict();
  VerdictOr<SignatureFile> signature = ParseSignatureFile(*signature_text);
  if (!signature.ok()) return signature.verdict();
  if (signature->key_id != key.key_id) {
    return Reject(Reason::kUnknownKey,
                  "release is signed by key " + signature->key_id +
                      (store->Find(signature->key_id) != nullptr ? " (listed, but not selected)"
                                                                 : " (not in the trust store)") +
                      "; the trust store selects key " + key.key_id);
  }

  VerdictOr<std::string> bytes = ReadBoundedFile(paths.manifest, "manifest", kMaxManifestBytes);
  if (!bytes.ok()) return bytes.verdict();
  const std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  Status signature_ok = VerifyRelease(key.public_key, raw, signature->signature);
  if (!signature_ok.ok()) {
    // Length was checked by ParseSignatureFile; anything left is a failed verification.
    return Reject(Reason::kBadSignature, "signature does not verify under key " + key.key_id +
                                             " over manifest " + paths.manifest);
  }

  // The selected key signed these bytes: a refusal from here on names them (probe AK2: an
  // auditor must see that a trusted key signed bytes that do not parse).
  const Sha256Digest digest = Sha256(raw);
  if (refused != nullptr) *refused = RefusedRelease{key.key_id, 0, digest};

  // Only now, with the bytes authenticated, parse exactly those bytes.
  Result<Manifest> manifest = ParseManifest(raw);
  if (!manifest.ok()) {
    return Reject(ManifestRefusalReason(manifest.status()), manifest.status().message());
  }
  if (refused != nullptr) refused->sequence = manifest->sequence;
  Status fresh = CheckExpiry(*manifest, now_micros);
  if (!fresh.ok()) return Reject(Reason::kExpired, fresh.message());

  VerdictOr<Watermarks> watermarks = LoadWatermarks(paths.watermark, secure_options_);
  if (!watermarks.ok()) return watermarks.verdict();
  VerdictOr<WatermarkStep> step = DecideWatermark(*watermarks, key.key_id, manifest->sequence, digest);
  if (!step.ok()) return step.verdict();

  AcceptedRelease out;
  const WatermarkEntry* before = watermarks->Find(key.key_id);
  out.watermark_file_existed = watermarks->file_existed;
  out.watermark_before = before ? before->sequence : 0;
  out.watermark = PendingWatermark{paths.watermark, key.key_id,
                                   WatermarkEntry{manifest->sequence, digest}, *step};
  out.manifest = std::move(manifest).value();
  out.manifest_bytes = std::move(bytes).value();
  out.signature = signature->signature;
  out.signature_file = std::move(signature_text).value();
  out.key_id = key.key_id;
  out.public_key = key.public_key;
  out.manifest_sha256 = digest;
  out.checked_at_micros = now_micros;
  return out;
}

Verdict ReleaseVerifier::CheckCanAdvance(const AcceptedRelease& release) {
  if (release.watermark.step != WatermarkStep::kAdvance) return Verdict::Accept();
  return CheckWatermarkWritable(release.watermark.path);
}

Verdict ReleaseVerifier::Commit(const AcceptedRelease& release) const {
  return CommitWatermark(release.watermark, secure_options_);
}

}  // namespace las::trust
