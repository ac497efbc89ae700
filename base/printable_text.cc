#include "base/printable_text.h"

#include <cstdint>
#include <cstdio>
#include <optional>

namespace las {
namespace {

bool Unsafe(char32_t c) {
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) ||
         c == 0xFEFF;
}

// The code point of the well-formed sequence at text[*pos] (advancing *pos past it), or
// nullopt for an ill-formed byte (*pos unchanged).
std::optional<char32_t> Decode(std::string_view text, size_t* pos) {
  const auto lead = static_cast<unsigned char>(text[*pos]);
  if (lead < 0x80) {
    ++*pos;
    return lead;
  }
  const size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                        : lead >= 0xF0 && lead <= 0xF4                                 ? 4
                                                                                        : 0;
  if (length == 0 || *pos + length > text.size()) return std::nullopt;
  char32_t c = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    const auto b = static_cast<unsigned char>(text[*pos + k]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    c = (c << 6) | (b & 0x3F);
  }
  const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < smallest[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return std::nullopt;
  *pos += length;
  return c;
}

}  // namespace

bool IsPrintableText(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    auto c = Decode(text, &pos);
    if (!c || Unsafe(*c)) return false;
  }
  return true;
}

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    auto c = Decode(text, &pos);
    char buf[16];
    if (!c) {
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[pos])));
      out += buf;
      ++pos;
    } else if (Unsafe(*c)) {
      std::snprintf(buf, sizeof buf, "\\u{%04X}", static_cast<unsigned>(*c));
      out += buf;
    } else {
      out.append(text, start, pos - start);
    }
  }
  return out;
}

}  // namespace las
