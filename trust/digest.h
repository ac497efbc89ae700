// SHA-256 digests: of bytes, of a file through an open descriptor, and of JSON in its
// canonical (RFC 8785) form. Manifests pin binaries, code files, tool input schemas and
// tool descriptions by these digests.
//
// Thread safety: free functions with no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trust/strict_json.h"

namespace las::trust {

inline constexpr size_t kSha256Bytes = 32;
using Sha256Digest = std::array<uint8_t, kSha256Bytes>;

Sha256Digest Sha256(std::span<const uint8_t> bytes);
Sha256Digest Sha256(std::string_view bytes);

// SHA-256 of the whole file open as `fd`, read from offset 0 to end of file with
// pread(2): the descriptor's own offset is left untouched, so the same descriptor can be
// executed afterwards (hash what you launch). The caller keeps ownership of `fd`.
// IoError if a read fails (e.g. `fd` is a pipe or not open for reading); InvalidArgument
// once more than `max_bytes` were read: a file checked for its size may still grow while
// it is hashed (probe EZ1: one grown to 16 GiB kept a launch reading 85 s).
Result<Sha256Digest> Sha256OfFile(int fd, uint64_t max_bytes = UINT64_MAX);

// SHA-256 of the JCS form of `json_text` (trust/canonical_json.h): two texts that differ
// only in whitespace, key order, escapes or number spelling share this digest.
// InvalidArgument if `json_text` is not strict JSON.
Result<Sha256Digest> CanonicalSha256(std::string_view json_text,
                                     const StrictJsonLimits& limits = {});

// 64 lowercase hex characters.
std::string Sha256Hex(const Sha256Digest& digest);
// Parses exactly 64 lowercase hex characters, the only spelling a manifest may use (one
// spelling per digest keeps signed bytes and compared values in step); nullopt otherwise.
std::optional<Sha256Digest> Sha256FromHex(std::string_view hex);

}  // namespace las::trust
