// ASCII case folding for text compared without regard to ASCII case (credentials, names of
// secrets). Bytes outside A-Z are kept as they are, whatever the process's locale.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace las {

// `text` with A-Z turned into a-z. Branch-free, so that the compiler vectorizes it: the
// credential scan lowercases every result whole, and a per-byte branch made half of its
// time (docs/PERFORMANCE.md).
inline std::string AsciiLower(std::string_view text) {
  std::string lower(text);
  auto* bytes = reinterpret_cast<unsigned char*>(lower.data());
  const size_t size = lower.size();
  for (size_t i = 0; i < size; ++i) {
    const unsigned char c = bytes[i];
    bytes[i] = static_cast<unsigned char>(c | (static_cast<unsigned char>(c - 'A') < 26 ? 0x20 : 0));
  }
  return lower;
}

}  // namespace las
