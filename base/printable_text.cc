#include "base/printable_text.h"

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

size_t DisplayWidth(std::string_view text) {
  static constexpr std::pair<char32_t, char32_t> kCombining[] = {
      {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
      {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
      {0x20D0, 0x20FF}, {0xFE20, 0xFE2F}};
  static constexpr std::pair<char32_t, char32_t> kWide[] = {
      {0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},
      {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
      {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
      {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
  auto in = [](char32_t c, const auto& ranges) {
    for (const auto& [first, last] : ranges) {
      if (c >= first && c <= last) return true;
    }
    return false;
  };
  size_t width = 0;
  for (size_t pos = 0; pos < text.size();) {
    auto c = DecodeUtf8(text, &pos);
    if (!c) {
      ++pos;
      ++width;
    } else if (!in(*c, kCombining)) {
      width += in(*c, kWide) ? 2 : 1;
    }
  }
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
