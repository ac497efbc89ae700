#include "projections/projection.h"

#include <sodium.h>

#include <array>

#include "base/hex.h"

namespace las::projections {

std::string Projection::CanonicalJson() const {
  std::string out;
  CanonicalWriter writer(&out);
  WriteCanonical(writer);
  writer.Finish();
  return out;
}

std::string Digest(const Projection& projection) {
  // libsodium asks for sodium_init() before first use (thread-safe, idempotent). Its
  // SHA-256 has no CPU-specific variants, so a failure would not change the result.
  [[maybe_unused]] static const int sodium = sodium_init();
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  CanonicalWriter writer(
      [](void* context, std::string_view bytes) {
        crypto_hash_sha256_update(static_cast<crypto_hash_sha256_state*>(context),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  bytes.size());
      },
      &state);
  projection.WriteCanonical(writer);
  writer.Finish();
  std::array<uint8_t, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256_final(&state, digest.data());
  return ToHex(digest);
}

}  // namespace las::projections
