// Feeds: event records as a tampered store could hand them to a reader — envelopes,
// each framed as a 2-byte little-endian length and that many bytes — through what the
// verifying cursor (log/chain_cursor.cc) checks: FlatBuffers verification, the envelope's
// sequence equal to its place, a previous-hash link present (the hash values themselves
// are not checked: whoever can write the store can recompute an unkeyed chain). What
// passes is handed on as the cursor hands it: EventToJson (`las replay`, `las events`) and
// a ProjectionSet (every reducer).
// Checks, besides no crash: the projections' saved states restore into a fresh set with
// the digests of the fold (the snapshot round trip of projections/projection_set.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "log/envelope.h"
#include "log/event_json.h"
#include "projections/projection_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  las::projections::ProjectionSet set;
  uint64_t sequence = 0;
  size_t pos = 0;
  while (pos + 2 <= size) {
    const size_t length = data[pos] | (size_t{data[pos + 1]} << 8);
    pos += 2;
    if (length > size - pos) break;
    las::log::StoredEvent event;
    event.sequence = sequence + 1;
    // A heap copy, as the cursor makes: FlatBuffers reads scalars in place.
    event.envelope.assign(reinterpret_cast<const char*>(data) + pos, length);
    pos += length;
    // The cursor's checks short of the hash values (log/chain_cursor.cc).
    const auto* bytes = reinterpret_cast<const uint8_t*>(event.envelope.data());
    if (!las::log::IsUsableEnvelope(bytes, event.envelope.size())) break;
    const auto& envelope = las::log::EnvelopeOf(event);
    if (envelope.sequence() != event.sequence || envelope.prev_hash() == nullptr) break;
    ++sequence;
    (void)las::log::EventToJson(event);
    set.Apply(event);
  }
  if (sequence == 0) return 0;
  const auto digests = set.Digests();
  auto states = set.SaveStates();
  if (!states) return 0;
  las::projections::ProjectionSet restored;
  LAS_FUZZ_CHECK(restored.RestoreAndDigest(*states).ok(), "saved states do not restore");
  LAS_FUZZ_CHECK(restored.Digests() == digests, "a restored set has other digests than the fold");
  return 0;
}
