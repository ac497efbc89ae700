// The hash chain that links every event to the one before it. log/FORMAT.md §Hash.
//
//   hash(n) = BLAKE2b-256( "las.log.event.v1" || 0x00 || hash(n-1) || envelope_bytes(n) )
//
// with hash(0) = 32 zero bytes. BLAKE2b was chosen over SHA-256 by measurement: it is
// ~3.5x cheaper per event here, which is what lets replay meet its 500k events/s target
// (see log/FORMAT.md and docs/PERFORMANCE.md). Manifest digests stay SHA-256.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace las::log {

using Hash = std::array<uint8_t, 32>;

inline constexpr Hash kGenesisHash{};  // hash(0): all zeros

// Pure function; safe from any thread.
Hash ChainHash(const Hash& previous, std::span<const uint8_t> envelope_bytes);

// The same construction under another domain label, for running digests of state derived
// from the log (e.g. the call ledger's, projections/calls_projection.h):
//   BLAKE2b-256( label || previous || bytes )
// `label` must end in its separating NUL byte and must not be "las.log.event.v1\0".
// Pure function; safe from any thread.
Hash DomainHash(std::string_view label, const Hash& previous, std::span<const uint8_t> bytes);

// A MAC under a 32-byte secret key (the snapshot key's seals: log/snapshot.h,
// log/head_seal.h): BLAKE2b-256 keyed with `key` over `label || bytes`, where `label` ends in
// its separating NUL byte. Pure function; safe from any thread.
Hash KeyedDomainHash(const std::array<uint8_t, 32>& key, std::string_view label,
                     std::string_view bytes);

}  // namespace las::log
