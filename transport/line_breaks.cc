#include "transport/line_breaks.h"

#include <cstddef>
#include <string_view>

namespace las::transport {
namespace {

// The escape of the line break that starts at `text[i]`, or empty when none starts there.
std::string_view EscapeAt(const std::string& text, size_t i) {
  const auto byte = [&](size_t at) { return at < text.size() ? static_cast<unsigned char>(text[at]) : 0; };
  if (byte(i) == 0xC2 && byte(i + 1) == 0x85) return "\\u0085";
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80 && byte(i + 2) == 0xA8) return "\\u2028";
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80 && byte(i + 2) == 0xA9) return "\\u2029";
  return {};
}

}  // namespace

void EscapeLineBreaksOfOtherReaders(std::string& json_text) {
  size_t first = 0;
  for (; first < json_text.size(); ++first) {
    const auto c = static_cast<unsigned char>(json_text[first]);
    if (c == '\r' || ((c == 0xC2 || c == 0xE2) && !EscapeAt(json_text, first).empty())) break;
  }
  if (first == json_text.size()) return;
  std::string out(json_text, 0, first);
  for (size_t i = first; i < json_text.size(); ++i) {
    if (json_text[i] == '\r') {
      out += ' ';
      continue;
    }
    const std::string_view escape = EscapeAt(json_text, i);
    if (escape.empty()) {
      out += json_text[i];
      continue;
    }
    out += escape;
    i += escape == "\\u0085" ? 1 : 2;
  }
  json_text = std::move(out);
}

}  // namespace las::transport
