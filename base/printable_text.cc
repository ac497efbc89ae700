#include "base/printable_text.h"

#include <locale.h>
#include <wchar.h>

#include <cstdio>
#include <utility>
#include <vector>

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

namespace {

// One character of `text` at `*pos` as EscapeForTerminal shows it; moves `*pos` past it (an
// ill-formed byte is one character).
std::string EscapedCharacter(std::string_view text, size_t* pos) {
  const size_t start = *pos;
  auto c = DecodeUtf8(text, pos);
  char buf[16];
  if (!c) {
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[*pos])));
    ++*pos;
    return buf;
  }
  if (Unsafe(*c)) {
    std::snprintf(buf, sizeof buf, "\\u{%04X}", static_cast<unsigned>(*c));
    return buf;
  }
  return std::string(text.substr(start, *pos - start));
}

}  // namespace

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) out += EscapedCharacter(text, &pos);
  return out;
}

std::string EscapeAndShorten(std::string_view text, size_t max_bytes) {
  // Whole characters, each escaped as a whole (a cut never splits an escape): as many from
  // the start as fill two thirds of the room, and from the end one third.
  struct Shown {
    size_t start;  // in `text`
    std::string escaped;
  };
  std::vector<Shown> characters;
  size_t escaped_bytes = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    characters.push_back({start, EscapedCharacter(text, &pos)});
    escaped_bytes += characters.back().escaped.size();
  }
  if (escaped_bytes <= max_bytes) return EscapeForTerminal(text);
  size_t head = 0;
  size_t head_bytes = 0;
  while (head < characters.size() && head_bytes + characters[head].escaped.size() <= max_bytes * 2 / 3) {
    head_bytes += characters[head++].escaped.size();
  }
  size_t tail = characters.size();
  size_t tail_bytes = 0;
  while (tail > head && tail_bytes + characters[tail - 1].escaped.size() <= max_bytes - max_bytes * 2 / 3) {
    tail_bytes += characters[--tail].escaped.size();
  }
  std::string out;
  // The end does not start with a combining mark, which would join the text before it.
  while (tail < characters.size() && DisplayWidth(characters[tail].escaped) == 0) ++tail;
  for (size_t i = 0; i < head; ++i) out += characters[i].escaped;
  const size_t left_out = (tail < characters.size() ? characters[tail].start : text.size()) -
                          characters[head].start;
  out += " ... (" + std::to_string(left_out) + " bytes left out) ... ";
  for (size_t i = tail; i < characters.size(); ++i) out += characters[i].escaped;
  return out;
}

std::string QuotedForTerminal(std::string_view value) {
  return "\"" + EscapeAndShorten(value, kMaxQuotedBytes) + "\"";
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
