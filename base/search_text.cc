#include "base/search_text.h"

#include <locale.h>
#include <wctype.h>

#include <cctype>

#include "base/utf8.h"

namespace las {
namespace {

// Created once, never freed: the tables are read-only and shared by every thread.
locale_t Utf8Tables() {
  static const locale_t tables = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return tables;
}

// The Unicode blocks of combining diacritical marks, which glibc classes as punctuation.
bool CombiningMark(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F);
}

// Lower case, and the final sigma as the other sigma, as Unicode's case folding has it
// (probe FJ8: "οδος" missed "ΟΔΟΣ"); towlower leaves ς as it is.
char32_t FoldedCodePoint(char32_t c, locale_t tables) {
  if (c == U'\u03C2') return U'\u03C3';
  return static_cast<char32_t>(towlower_l(static_cast<wint_t>(c), tables));
}

bool WordCodePoint(char32_t c, locale_t tables) {
  if (c < 0x80) return std::isalnum(static_cast<int>(c)) != 0;
  if (tables == nullptr) return true;
  return iswalnum_l(static_cast<wint_t>(c), tables) != 0 || CombiningMark(c);
}

// Calls `each(start, end, code_point)` for every character; an ill-formed byte comes as one
// character with no code point.
template <typename F>
void ForEachCharacter(std::string_view text, F&& each) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const std::optional<char32_t> c = DecodeUtf8(text, &pos);
    if (!c) ++pos;
    each(start, pos, c);
  }
}

}  // namespace

std::string FoldCase(std::string_view text) {
  const locale_t tables = Utf8Tables();
  std::string out;
  out.reserve(text.size());
  ForEachCharacter(text, [&](size_t start, size_t end, std::optional<char32_t> c) {
    if (!c || *c >= 0x80) {
      if (!c || tables == nullptr) {
        out.append(text.substr(start, end - start));
      } else {
        AppendUtf8(FoldedCodePoint(*c, tables), out);
      }
      return;
    }
    out.push_back(static_cast<char>(std::tolower(static_cast<int>(*c))));
  });
  return out;
}

std::vector<std::string_view> SearchWords(std::string_view text) {
  const locale_t tables = Utf8Tables();
  std::vector<std::string_view> words;
  size_t word_start = std::string_view::npos;
  ForEachCharacter(text, [&](size_t start, size_t /*end*/, std::optional<char32_t> c) {
    const bool in_word = !c || WordCodePoint(*c, tables);
    if (in_word && word_start == std::string_view::npos) word_start = start;
    if (!in_word && word_start != std::string_view::npos) {
      words.push_back(text.substr(word_start, start - word_start));
      word_start = std::string_view::npos;
    }
  });
  if (word_start != std::string_view::npos) words.push_back(text.substr(word_start));
  return words;
}

}  // namespace las
