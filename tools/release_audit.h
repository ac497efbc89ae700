// Re-verifying recorded releases offline, for `las replay`: every ReleaseAccepted event
// carries the raw manifest bytes, the detached signature, the key id and the public key,
// so an auditor can check — with no trust store, no network and no running server — that
// each release Las accepted was really signed by the key it names and parses as a manifest.
#pragma once

#include "base/status.h"
#include "log/event.h"

namespace las::tools {

// Ok for any event that is not ReleaseAccepted. For a ReleaseAccepted: the public key is a
// valid Ed25519 key whose key id is the recorded one, the signature verifies over the
// recorded bytes (domain-separated as at signing), and the bytes parse as a manifest with
// the recorded sequence, whose SHA-256 is the recorded manifest_sha256 and whose expiry is
// the recorded expires_at. Otherwise kCorruption saying which check failed.
Status AuditRecordedRelease(const log::StoredEvent& event);

}  // namespace las::tools
