#include "trust/leading_lookaheads.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/hex.h"

namespace las::trust {
namespace {

// The index just past the `)` that closes the group opened before `from`, or npos when
// none does; `bars_at_top` gets the index of each `|` outside any nested group or class.
size_t GroupEnd(std::string_view pattern, size_t from, std::vector<size_t>* bars_at_top) {
  int depth = 1;
  bool in_class = false;
  for (size_t i = from; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;  // the escaped character, whatever it is
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return i + 1;
    } else if (c == '|' && depth == 1 && bars_at_top != nullptr) {
      bars_at_top->push_back(i);
    }
  }
  return std::string_view::npos;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The index just past the escape that starts at `i` (a `\`), read as u-flag ECMAScript:
// \u{..}, \p{..}, \P{..}, \k<..>, \uXXXX, \xXX, \cX, else the one character escaped
// (a UTF-8 sequence whole); npos when a brace or angle is not closed.
size_t EscapeEnd(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return std::string_view::npos;
  const char c = s[i + 1];
  if ((c == 'u' || c == 'p' || c == 'P') && i + 2 < s.size() && s[i + 2] == '{') {
    const size_t close = s.find('}', i + 3);
    return close == std::string_view::npos ? close : close + 1;
  }
  if (c == 'k' && i + 2 < s.size() && s[i + 2] == '<') {
    const size_t close = s.find('>', i + 3);
    return close == std::string_view::npos ? close : close + 1;
  }
  if (c == 'u') {
    // A surrogate pair written as two escapes is one code point under the u flag (probe
    // HH4: `\uD83D\uDE00?` lost its second half, leaving a lone surrogate).
    auto hex_at = [&s](size_t at) -> int {  // the code unit of `\uXXXX` at `at`, or -1
      const auto bytes = at + 4 <= s.size() ? FromHex(s.substr(at, 4)) : std::nullopt;
      return bytes ? (*bytes)[0] << 8 | (*bytes)[1] : -1;
    };
    const int high = hex_at(i + 2);
    if (high >= 0xD800 && high <= 0xDBFF && i + 8 <= s.size() && s.substr(i + 6, 2) == "\\u") {
      const int low = hex_at(i + 8);
      if (low >= 0xDC00 && low <= 0xDFFF) return i + 12;
    }
    return std::min(s.size(), i + 6);
  }
  if (c == 'x') return std::min(s.size(), i + 4);
  if (c == 'c') return std::min(s.size(), i + 3);
  const auto lead = static_cast<unsigned char>(c);
  const size_t bytes = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  return std::min(s.size(), i + 1 + bytes);
}

// A quantifier at `i`: its minimum and the index past it (and past a lazy `?`), or
// nullopt for none; `broken` is set for a `{` that opens no quantifier.
struct Quantifier {
  uint64_t minimum;
  size_t end;
};
std::optional<Quantifier> QuantifierAt(std::string_view s, size_t i, bool* broken) {
  if (i >= s.size()) return std::nullopt;
  Quantifier q{0, i + 1};
  if (s[i] == '+') {
    q.minimum = 1;
  } else if (s[i] == '{') {
    size_t j = i + 1;
    uint64_t minimum = 0;
    while (j < s.size() && IsDigit(s[j]) && minimum < 100000) minimum = minimum * 10 + static_cast<uint64_t>(s[j++] - '0');
    if (j == i + 1) {
      *broken = true;
      return std::nullopt;
    }
    if (j < s.size() && s[j] == ',') {
      ++j;
      while (j < s.size() && IsDigit(s[j])) ++j;
    }
    if (j >= s.size() || s[j] != '}') {
      *broken = true;
      return std::nullopt;
    }
    q = {minimum, j + 1};
  } else if (s[i] != '*' && s[i] != '?') {
    return std::nullopt;
  }
  if (q.end < s.size() && s[q.end] == '?') ++q.end;  // lazy: the same strings
  return q;
}

struct Item {
  size_t end;  // past the item, its quantifier included
  bool nullable;
};

std::optional<bool> AnyAlternativeNullable(std::string_view s);

// The items of one alternative (no `|` outside a group or class), each an atom and its
// quantifier, with whether it can match the empty string without a look-around or an
// anchor deciding (a look-around or anchor is taken as not nullable: conservative);
// nullopt when something cannot be read.
std::optional<std::vector<Item>> SequenceItems(std::string_view s) {
  std::vector<Item> items;
  for (size_t i = 0; i < s.size();) {
    size_t end = i + 1;
    bool nullable = false;
    const char c = s[i];
    if (c == '\\') {
      end = EscapeEnd(s, i);
    } else if (c == '[') {
      end = std::string_view::npos;
      size_t j = i + 1;
      if (j < s.size() && s[j] == '^') ++j;
      for (; j < s.size(); ++j) {
        if (s[j] == '\\') {
          ++j;
        } else if (s[j] == ']') {
          end = j + 1;
          break;
        }
      }
    } else if (c == '(') {
      end = GroupEnd(s, i + 1, nullptr);
      if (end == std::string_view::npos) return std::nullopt;
      const std::string_view group = s.substr(i + 1, end - 1 - (i + 1));
      const bool lookaround = group.starts_with("?=") || group.starts_with("?!") ||
                              group.starts_with("?<=") || group.starts_with("?<!");
      if (!lookaround) {
        size_t body = 0;
        if (group.starts_with("?:")) {
          body = 2;
        } else if (group.starts_with("?<")) {
          body = group.find('>');
          if (body == std::string_view::npos) return std::nullopt;
          ++body;
        } else if (group.starts_with("?")) {
          return std::nullopt;  // a group kind ECMAScript does not have
        }
        const std::optional<bool> empty = AnyAlternativeNullable(group.substr(body));
        if (!empty) return std::nullopt;
        nullable = *empty;
      }
    } else if (c == ')' || c == '|' || c == '*' || c == '+' || c == '?' || c == '{') {
      return std::nullopt;  // not where an atom stands
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      const auto lead = static_cast<unsigned char>(c);
      end = std::min(s.size(), i + (lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2));
    }
    if (end == std::string_view::npos || end > s.size()) return std::nullopt;
    bool broken = false;
    if (const std::optional<Quantifier> q = QuantifierAt(s, end, &broken)) {
      nullable = nullable || q->minimum == 0;
      end = q->end;
    } else if (broken) {
      return std::nullopt;
    }
    items.push_back({end, nullable});
    i = end;
  }
  return items;
}

std::optional<bool> AnyAlternativeNullable(std::string_view s) {
  // Read as a group's body that the end of `s` closes (as SplitLeadingLookaheads reads).
  const std::string body = std::string(s) + ")";
  std::vector<size_t> bars;
  if (GroupEnd(body, 0, &bars) != body.size()) return std::nullopt;
  bars.push_back(s.size());
  bool any = false;
  size_t start = 0;
  for (const size_t bar : bars) {
    const std::optional<std::vector<Item>> items = SequenceItems(s.substr(start, bar - start));
    if (!items) return std::nullopt;
    any = any || std::all_of(items->begin(), items->end(), [](const Item& item) { return item.nullable; });
    start = bar + 1;
  }
  return any;
}

// `rest` ("^" and one alternative) without the items at its end that can match the empty
// string: a search for `^AN`, N nullable, finds a match exactly when one for `^A` does
// (take N empty; a match of `^AN` holds one of `^A`). pydantic's constrained Decimal ends
// in such a group, whose second alternative has a look-ahead RE2 cannot run (probe HE4):
// `^[+-]?0*(?:\d{0,3}|(?=[\d.]{1,6}0*$)\d{0,3}\.\d{0,2}0*$)` is `^`. Unchanged when
// something cannot be read.
std::string WithoutNullableEnd(const std::string& rest) {
  const std::optional<std::vector<Item>> items = SequenceItems(std::string_view(rest).substr(1));
  if (!items) return rest;
  size_t keep = items->size();
  while (keep > 0 && (*items)[keep - 1].nullable) --keep;
  return "^" + rest.substr(1, keep == 0 ? 0 : (*items)[keep - 1].end);
}

}  // namespace

std::optional<LookaheadSplit> SplitLeadingLookaheads(std::string_view pattern) {
  if (!pattern.starts_with("^(?!") && !pattern.starts_with("^(?=")) return std::nullopt;
  LookaheadSplit split;
  size_t at = 1;
  while (pattern.substr(at).starts_with("(?!") || pattern.substr(at).starts_with("(?=")) {
    const size_t end = GroupEnd(pattern, at + 3, nullptr);
    if (end == std::string_view::npos) return std::nullopt;
    split.conditions.push_back(
        {pattern[at + 2] == '=', "^(?:" + std::string(pattern.substr(at + 3, end - 1 - (at + 3))) + ")"});
    at = end;
  }
  // What follows, read as the body of a group that the end of the pattern closes.
  const std::string rest = std::string(pattern.substr(at)) + ")";
  std::vector<size_t> bars_at_top;
  if (GroupEnd(rest, 0, &bars_at_top) != rest.size() || !bars_at_top.empty()) return std::nullopt;
  split.rest = WithoutNullableEnd("^" + std::string(pattern.substr(at)));
  return split;
}

}  // namespace las::trust
