// Re-verifying recorded releases offline, for `las replay`: every ReleaseAccepted event
// carries the raw manifest bytes, the detached signature, the key id and the public key,
// so an auditor can check — with no trust store, no network and no running server — that
// each release Las accepted was really signed by the key it names and parses as a manifest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "log/event.h"
#include "trust/trust_store.h"

namespace las::tools {

// Ok for any event that is not ReleaseAccepted. For a ReleaseAccepted: the public key is a
// valid Ed25519 key whose key id is the recorded one, the signature verifies over the
// recorded bytes (domain-separated as at signing), and the bytes parse as a manifest with
// the recorded sequence, whose SHA-256 is the recorded manifest_sha256 and whose expiry is
// the recorded expires_at. Otherwise kCorruption saying which check failed.
Status AuditRecordedRelease(const log::StoredEvent& event);

// What the signature check cannot say: whether the key was trusted. A ReleaseAccepted
// (that passed AuditRecordedRelease) whose key `store` does not list — by id with the same
// public key — any of its keys, selected or not; nullopt for a listed key and other events.
struct UntrustedRelease {
  uint64_t release_sequence = 0;
  std::string key_id;
};
std::optional<UntrustedRelease> UntrustedBy(const log::StoredEvent& event,
                                            const trust::TrustStore& store);

}  // namespace las::tools
