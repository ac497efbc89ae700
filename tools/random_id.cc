#include "tools/random_id.h"

#include <sodium.h>

#include <array>
#include <cstdlib>

#include "base/hex.h"

namespace las::tools {

std::string RandomId(std::string_view prefix) {
  std::array<uint8_t, 16> bytes{};
  // Idempotent and thread-safe; -1 means it cannot initialize, and then no id is safe.
  if (sodium_init() < 0) std::abort();
  randombytes_buf(bytes.data(), bytes.size());
  return std::string(prefix) + ToHex(bytes);
}

}  // namespace las::tools
