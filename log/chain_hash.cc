#include "log/chain_hash.h"

#include <sodium.h>

#include <string_view>

namespace las::log {
namespace {
// The trailing NUL is part of the label: it separates the label from the hash bytes.
constexpr std::string_view kLabel{"las.log.event.v1\0", 17};
static_assert(crypto_generichash_BYTES == 32);
}  // namespace

Hash DomainHash(std::string_view label, const Hash& previous, std::span<const uint8_t> bytes) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, crypto_generichash_BYTES);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(label.data()),
                            label.size());
  crypto_generichash_update(&state, previous.data(), previous.size());
  crypto_generichash_update(&state, bytes.data(), bytes.size());
  Hash out;
  crypto_generichash_final(&state, out.data(), out.size());
  return out;
}

Hash KeyedDomainHash(const std::array<uint8_t, 32>& key, std::string_view label,
                     std::string_view bytes) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, key.data(), key.size(), crypto_generichash_BYTES);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(label.data()),
                            label.size());
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(bytes.data()),
                            bytes.size());
  Hash out;
  crypto_generichash_final(&state, out.data(), out.size());
  return out;
}

Hash ChainHash(const Hash& previous, std::span<const uint8_t> envelope_bytes) {
  return DomainHash(kLabel, previous, envelope_bytes);
}

}  // namespace las::log
