#include "tools/release_audit.h"

#include <algorithm>

#include "log/envelope.h"
#include "reducers/strings.h"
#include "trust/digest.h"
#include "trust/manifest.h"
#include "trust/rfc3339.h"
#include "trust/signature.h"

namespace las::tools {

Status AuditRecordedRelease(const log::StoredEvent& event) {
  const fb::Envelope& envelope = log::EnvelopeOf(event);
  if (envelope.payload_type() != fb::EventPayload::ReleaseAccepted) return Status::Ok();
  const fb::ReleaseAccepted* release = envelope.payload_as_ReleaseAccepted();
  if (release->public_key() == nullptr || release->manifest() == nullptr ||
      release->signature() == nullptr) {
    return Corruption("recorded release lacks its key, manifest or signature");
  }
  auto key = trust::PublicKey::FromBytes({release->public_key()->data(), release->public_key()->size()});
  if (!key.ok()) return Corruption("recorded release key is not a valid Ed25519 key");
  const std::string key_id = release->key_id() != nullptr ? release->key_id()->str() : "";
  if (trust::KeyIdOf(*key) != key_id) {
    return Corruption("recorded release key does not have the recorded key id " + key_id);
  }
  std::span<const uint8_t> manifest(release->manifest()->data(), release->manifest()->size());
  Status verified = trust::VerifyRelease(
      *key, manifest, {release->signature()->data(), release->signature()->size()});
  if (!verified.ok()) return Corruption("recorded release signature does not verify");
  auto parsed = trust::ParseManifest(manifest);
  // Out of memory says nothing of the recorded bytes: not tamper (probe FR1).
  if (!parsed.ok() && parsed.status().code() == Code::kIo) return parsed.status();
  if (!parsed.ok()) return Corruption("recorded release bytes are not a valid manifest");
  if (parsed->sequence != release->release_sequence()) {
    return Corruption("recorded release sequence differs from the signed manifest");
  }
  // The fields derived from the signed bytes must say what those bytes say: an auditor
  // reads them in the event.
  if (reducers::Str(release->manifest_sha256()) != trust::Sha256Hex(trust::Sha256(manifest))) {
    return Corruption("recorded release manifest_sha256 is not the digest of its bytes");
  }
  if (reducers::Str(release->expires_at()) != trust::FormatRfc3339UtcMicros(parsed->expires_at_micros)) {
    return Corruption("recorded release expires_at differs from the signed manifest");
  }
  return Status::Ok();
}

std::optional<UntrustedRelease> UntrustedBy(const log::StoredEvent& event,
                                            const trust::TrustStore& store) {
  const fb::Envelope& envelope = log::EnvelopeOf(event);
  if (envelope.payload_type() != fb::EventPayload::ReleaseAccepted) return std::nullopt;
  const fb::ReleaseAccepted* release = envelope.payload_as_ReleaseAccepted();
  const std::string key_id = reducers::Str(release->key_id());
  const trust::TrustedKey* listed = store.Find(key_id);
  const auto* recorded = release->public_key();
  if (listed != nullptr && recorded != nullptr &&
      std::equal(recorded->begin(), recorded->end(), listed->public_key.bytes.begin(),
                 listed->public_key.bytes.end())) {
    return std::nullopt;
  }
  return UntrustedRelease{release->release_sequence(), key_id};
}

}  // namespace las::tools
