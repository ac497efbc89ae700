#include "trust/digest.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/hex.h"
#include "base/sha256.h"
#include "trust/canonical_json.h"

namespace las::trust {

Sha256Digest Sha256(std::span<const uint8_t> bytes) { return Sha256Hasher::Of(bytes); }

Sha256Digest Sha256(std::string_view bytes) { return Sha256Hasher::Of(bytes); }

Result<Sha256Digest> Sha256OfFile(int fd, uint64_t max_bytes) {
  Sha256Hasher hasher;
  std::vector<uint8_t> buffer(256 * 1024);
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError(std::string("reading file to hash: ") + std::strerror(errno));
    }
    if (n == 0) break;
    hasher.Update(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(n)));
    offset += n;
    if (static_cast<uint64_t>(offset) > max_bytes) {
      return InvalidArgument("the file holds more than " + std::to_string(max_bytes) +
                             " bytes (it grew while it was hashed)");
    }
  }
  return hasher.Finish();
}

Result<Sha256Digest> CanonicalSha256(std::string_view json_text, const StrictJsonLimits& limits) {
  Result<std::string> canonical = CanonicalizeJson(json_text, limits);
  if (!canonical.ok()) return canonical.status();
  return Sha256(*canonical);
}

std::string Sha256Hex(const Sha256Digest& digest) { return ToHex(digest); }

std::optional<Sha256Digest> Sha256FromHex(std::string_view hex) {
  if (hex.size() != 2 * kSha256Bytes) return std::nullopt;
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  std::optional<std::vector<uint8_t>> bytes = FromHex(hex);
  if (!bytes) return std::nullopt;
  Sha256Digest out;
  std::memcpy(out.data(), bytes->data(), out.size());
  return out;
}

}  // namespace las::trust
