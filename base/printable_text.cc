#include "base/printable_text.h"

#include <cstdio>

#include "base/utf8.h"

namespace las {
namespace {

bool Unsafe(char32_t c) {
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) ||
         c == 0xFEFF;
}

}  // namespace

bool IsPrintableText(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    auto c = DecodeUtf8(text, &pos);
    if (!c || Unsafe(*c)) return false;
  }
  return true;
}

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    auto c = DecodeUtf8(text, &pos);
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
