#include "projections/projection.h"

#include <sodium.h>

#include <array>

#include "base/hex.h"

namespace las::projections {

std::string Digest(const Projection& projection) {
  const std::string canonical = projection.CanonicalJson();
  std::array<uint8_t, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256(digest.data(), reinterpret_cast<const unsigned char*>(canonical.data()),
                     canonical.size());
  return ToHex(digest);
}

}  // namespace las::projections
