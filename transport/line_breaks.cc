#include "transport/line_breaks.h"

#include <cstddef>
#include <string_view>

namespace las::transport {
namespace {

// The escape of the line break that starts at `text[i]`, or empty when none starts there.
std::string_view EscapeAt(std::string_view text, size_t i) {
  const auto byte = [&](size_t at) { return at < text.size() ? static_cast<unsigned char>(text[at]) : 0; };
  if (byte(i) == 0xC2 && byte(i + 1) == 0x85) return "\\u0085";
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80 && byte(i + 2) == 0xA8) return "\\u2028";
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80 && byte(i + 2) == 0xA9) return "\\u2029";
  return {};
}

// An escape replaces a break of this many bytes: C2 85, or E2 80 A8/A9.
size_t BreakBytes(std::string_view escape) { return escape == "\\u0085" ? 2 : 3; }

}  // namespace

size_t LineBreakEscapeGrowth(std::string_view json_text) {
  size_t growth = 0;
  for (size_t i = 0; i < json_text.size(); ++i) {
    const auto c = static_cast<unsigned char>(json_text[i]);
    if (c != 0xC2 && c != 0xE2) continue;
    const std::string_view escape = EscapeAt(json_text, i);
    if (escape.empty()) continue;
    growth += escape.size() - BreakBytes(escape);
    i += BreakBytes(escape) - 1;
  }
  return growth;
}

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
    i += BreakBytes(escape) - 1;
  }
  json_text = std::move(out);
}

}  // namespace las::transport
