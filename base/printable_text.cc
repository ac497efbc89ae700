#include "base/printable_text.h"

#include <locale.h>
#include <wchar.h>

#include <cstdio>
#include <utility>

#include "base/utf8.h"

namespace las {
namespace {

bool Unsafe(char32_t c) {
  if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029) return true;
  // Unicode's Default_Ignorable_Code_Point set (which holds every bidirectional control)
  // and the interlinear annotation controls: all display as nothing.
  static constexpr std::pair<char32_t, char32_t> kInvisible[] = {
      {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
      {0x180B, 0x180F},   {0x200B, 0x200F},   {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
      {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFFB}, {0x1BCA0, 0x1BCA3},
      {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}};
  for (const auto& [first, last] : kInvisible) {
    if (c >= first && c <= last) return true;
  }
  return false;
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

std::string EscapeAndShorten(std::string_view text, size_t max_bytes) {
  std::string shown = EscapeForTerminal(text);
  if (shown.size() <= max_bytes) return shown;
  // Escaped text is well-formed UTF-8: a cut steps back over continuation bytes.
  auto boundary = [&](size_t at) {
    while (at > 0 && (static_cast<unsigned char>(shown[at]) & 0xC0) == 0x80) --at;
    return at;
  };
  const size_t head = boundary(max_bytes * 2 / 3);
  const size_t tail = boundary(shown.size() - max_bytes / 3);
  return shown.substr(0, head) + " ... (" + std::to_string(tail - head) + " bytes left out) ... " +
         shown.substr(tail);
}

size_t DisplayWidth(std::string_view text) {
  // glibc's C.UTF-8 (libc-bin, always installed) holds Unicode's widths (probe CN5: a table
  // of ranges kept here missed some); uselocale changes this thread's locale only, and
  // only for the count.
  static const locale_t utf8 = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  const locale_t previous = utf8 != nullptr ? ::uselocale(utf8) : nullptr;
  size_t width = 0;
  for (size_t pos = 0; pos < text.size();) {
    auto c = DecodeUtf8(text, &pos);
    if (!c) {
      ++pos;
      ++width;
      continue;
    }
    const int columns = utf8 != nullptr ? ::wcwidth(static_cast<wchar_t>(*c)) : 1;
    width += columns < 0 ? 1 : static_cast<size_t>(columns);
  }
  if (previous != nullptr) ::uselocale(previous);
  return width;
}

std::string EscapeUnsafeInJson(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  auto escape = [&out](char32_t unit) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(unit));
    out += buf;
  };
  for (size_t pos = 0; pos < json_text.size();) {
    if (static_cast<unsigned char>(json_text[pos]) < 0x80) {  // JSON escaped the C0 controls
      out += json_text[pos++];
      continue;
    }
    const size_t start = pos;
    auto c = DecodeUtf8(json_text, &pos);
    if (!c) {
      out += json_text[pos++];
    } else if (Unsafe(*c)) {
      if (*c > 0xFFFF) {
        escape(0xD800 + ((*c - 0x10000) >> 10));
        escape(0xDC00 + ((*c - 0x10000) & 0x3FF));
      } else {
        escape(*c);
      }
    } else {
      out.append(json_text, start, pos - start);
    }
  }
  return out;
}

}  // namespace las
