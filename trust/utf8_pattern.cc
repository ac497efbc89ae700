#include "trust/utf8_pattern.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "base/utf8.h"

namespace las::trust {

namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;

// A set of code points: sorted, disjoint, non-adjacent closed intervals.
class CodePointSet {
 public:
  void Add(char32_t first, char32_t last) { ranges_.emplace_back(first, last); }
  void Add(const CodePointSet& other) { ranges_.insert(ranges_.end(), other.ranges_.begin(), other.ranges_.end()); }

  CodePointSet Complement() const {
    const auto ranges = Normalized();
    CodePointSet out;
    char32_t next = 0;
    for (auto [first, last] : ranges) {
      if (first > next) out.Add(next, first - 1);
      next = last + 1;
    }
    if (next <= kMaxCodePoint) out.Add(next, kMaxCodePoint);
    return out;
  }

  std::vector<std::pair<char32_t, char32_t>> Normalized() const {
    auto ranges = ranges_;
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<char32_t, char32_t>> out;
    for (auto r : ranges) {
      if (!out.empty() && r.first <= out.back().second + 1) {
        out.back().second = std::max(out.back().second, r.second);
      } else {
        out.push_back(r);
      }
    }
    return out;
  }

 private:
  std::vector<std::pair<char32_t, char32_t>> ranges_;
};

CodePointSet Single(char32_t c) {
  CodePointSet s;
  s.Add(c, c);
  return s;
}

CodePointSet Digits() {
  CodePointSet s;
  s.Add('0', '9');
  return s;
}

CodePointSet WordCharacters() {
  CodePointSet s;
  s.Add('0', '9');
  s.Add('A', 'Z');
  s.Add('_', '_');
  s.Add('a', 'z');
  return s;
}

// ECMAScript's WhiteSpace and LineTerminator (what `\s` matches).
CodePointSet WhiteSpace() {
  CodePointSet s;
  s.Add('\t', '\r');
  s.Add(' ', ' ');
  for (char32_t c : {0xA0u, 0x1680u, 0x2028u, 0x2029u, 0x202Fu, 0x205Fu, 0x3000u, 0xFEFFu}) s.Add(c, c);
  s.Add(0x2000, 0x200A);
  return s;
}

// What `.` matches: every code point but the line terminators.
CodePointSet AnyButLineTerminator() {
  CodePointSet terminators;
  for (char32_t c : {0x0Au, 0x0Du, 0x2028u, 0x2029u}) terminators.Add(c, c);
  return terminators.Complement();
}

std::string HexByte(uint8_t b) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  return buf;
}

std::string ByteClass(uint8_t first, uint8_t last) {
  if (first == last) return HexByte(first);
  return "[" + HexByte(first) + "-" + HexByte(last) + "]";
}

int EncodedLength(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

std::vector<uint8_t> EncodeUtf8(char32_t c) {
  auto byte = [](char32_t v) { return static_cast<uint8_t>(v); };
  switch (EncodedLength(c)) {
    case 1:
      return {byte(c)};
    case 2:
      return {byte(0xC0 | (c >> 6)), byte(0x80 | (c & 0x3F))};
    case 3:
      return {byte(0xE0 | (c >> 12)), byte(0x80 | ((c >> 6) & 0x3F)), byte(0x80 | (c & 0x3F))};
    default:
      return {byte(0xF0 | (c >> 18)), byte(0x80 | ((c >> 12) & 0x3F)), byte(0x80 | ((c >> 6) & 0x3F)),
              byte(0x80 | (c & 0x3F))};
  }
}

// The UTF-8 encodings of [first, last] (no surrogates inside) as byte-class sequences, one
// alternative each: split until every alternative's bytes vary independently (the
// construction RE2 and Rust's regex-syntax use).
void AppendSequences(char32_t first, char32_t last, std::vector<std::string>& out) {
  std::vector<std::pair<char32_t, char32_t>> stack = {{first, last}};
  while (!stack.empty()) {
    auto [lo, hi] = stack.back();
    stack.pop_back();
    bool split = false;
    for (char32_t max : {0x7Fu, 0x7FFu, 0xFFFFu}) {  // one encoded length per range
      if (lo <= max && max < hi) {
        stack.emplace_back(max + 1, hi);
        stack.emplace_back(lo, max);
        split = true;
        break;
      }
    }
    for (int i = 1; !split && i < 4; ++i) {  // continuation bytes span their full range
      const char32_t m = (char32_t{1} << (6 * i)) - 1;
      if ((lo & ~m) == (hi & ~m)) continue;
      if ((lo & m) != 0) {
        stack.emplace_back((lo | m) + 1, hi);
        stack.emplace_back(lo, lo | m);
        split = true;
      } else if ((hi & m) != m) {
        stack.emplace_back(hi & ~m, hi);
        stack.emplace_back(lo, (hi & ~m) - 1);
        split = true;
      }
    }
    if (split) continue;
    const std::vector<uint8_t> a = EncodeUtf8(lo);
    const std::vector<uint8_t> b = EncodeUtf8(hi);
    std::string sequence;
    for (size_t k = 0; k < a.size(); ++k) sequence += ByteClass(a[k], b[k]);
    out.push_back(std::move(sequence));
  }
}

// The set as one RE2 class of code points (UTF-8 mode), surrogates left out.
std::string EmitCodePoints(const CodePointSet& set) {
  auto escape = [](char32_t c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\x{%X}", static_cast<unsigned>(c));
    return std::string(buf);
  };
  std::string out;
  auto add = [&](char32_t first, char32_t last) {
    if (first > last) return;
    out += escape(first);
    if (last != first) out += "-" + escape(last);
  };
  for (auto [first, last] : set.Normalized()) {
    if (first < 0xD800 && last > 0xDFFF) {
      add(first, 0xD7FF);
      add(0xE000, last);
    } else if (first < 0xD800) {
      add(first, std::min<char32_t>(last, 0xD7FF));
    } else {
      add(std::max<char32_t>(first, 0xE000), last);
    }
  }
  return out.empty() ? "[^\\x{0}-\\x{10FFFF}]" : "[" + out + "]";  // empty: matches nothing
}

// The set as one std::regex atom over UTF-8 bytes.
std::string EmitUtf8Bytes(const CodePointSet& set) {
  std::string ascii;
  std::vector<std::string> multibyte;
  for (auto [first, last] : set.Normalized()) {
    if (first < 0x80) {
      const char32_t end = std::min<char32_t>(last, 0x7F);
      ascii += first == end ? HexByte(static_cast<uint8_t>(first))
                            : HexByte(static_cast<uint8_t>(first)) + "-" + HexByte(static_cast<uint8_t>(end));
      if (last < 0x80) continue;
      first = 0x80;
    }
    // Surrogates have no UTF-8 encoding: no subject holds one.
    if (first < 0xD800 && last >= 0xD800) {
      AppendSequences(first, 0xD7FF, multibyte);
      if (last > 0xDFFF) AppendSequences(0xE000, last, multibyte);
    } else if (first >= 0xD800 && first <= 0xDFFF) {
      if (last > 0xDFFF) AppendSequences(0xE000, last, multibyte);
    } else {
      AppendSequences(first, last, multibyte);
    }
  }
  if (multibyte.empty()) return ascii.empty() ? "(?!)" : "[" + ascii + "]";  // (?!) matches nothing
  std::string out = ascii.empty() ? "(?:" : "(?:[" + ascii + "]|";
  for (size_t i = 0; i < multibyte.size(); ++i) out += (i ? "|" : "") + multibyte[i];
  return out + ")";
}

class Translator {
 public:
  Translator(std::string_view pattern, PatternTarget target) : in_(pattern), target_(target) {}

  Result<std::string> Run() {
    while (pos_ < in_.size()) {
      const char c = in_[pos_];
      if (c == '\\') {
        LAS_RETURN_IF_ERROR(Escape());
      } else if (c == '[') {
        Result<CodePointSet> set = Class();
        if (!set.ok()) return set.status();
        out_ += Emit(*set);
      } else if (c == '.') {
        ++pos_;
        out_ += Emit(AnyButLineTerminator());
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        Result<char32_t> cp = DecodeNext();
        if (!cp.ok()) return cp.status();
        out_ += Emit(Single(*cp));
      } else if (c == '{') {
        LAS_RETURN_IF_ERROR(Brace());
      } else if (in_.substr(pos_, 3) == "(?<") {
        // Valid u-flag syntax that neither engine here reads as ECMAScript does (std::regex
        // refuses both; RE2 reads (?<name> as a capture and has no look-behind).
        const char next = pos_ + 3 < in_.size() ? in_[pos_ + 3] : '\0';
        if (next == '=' || next == '!') return NotSupported("look-behind ((?<= or (?<!)");
        return NotSupported("a named group ((?<name>...))");
      } else if (c == '\0') {  // valijson cuts a patternProperties key at a raw NUL
        out_ += "\\x00";
        ++pos_;
      } else {
        out_ += c;
        ++pos_;
      }
    }
    return out_;
  }

 private:
  static Status Error(const char* why) { return InvalidArgument(std::string("the pattern ") + why); }

  // A construct a u-flag ECMAScript pattern may hold, whose meaning Las does not implement.
  static Status NotSupported(const char* what) {
    return Unsupported(std::string("the pattern uses ") + what +
                       ", valid in a u-flag ECMAScript pattern but not supported by Las");
  }

  // The escape at pos_ is a backslash and the ASCII letter, digit or '_' `e`, which is none
  // of the escapes the caller knows (`in_class`: inside a class, where fewer are known).
  // Valid u-flag escapes Las does not implement are kUnsupported; the rest mean nothing in
  // a u-flag pattern and something else on each engine here (RE2's \z, \A, \C, \Q;
  // std::regex's literal letter), so they are refused rather than guessed.
  Status UnknownEscape(char e, bool in_class) const {
    const bool brace = pos_ + 2 < in_.size() && in_[pos_ + 2] == '{';
    if ((e == 'p' || e == 'P') && brace) return NotSupported("a Unicode property escape (\\p{..} or \\P{..})");
    if (e == 'u' && brace) return NotSupported("a code point escape (\\u{..})");
    if (e == 'k' && !in_class && pos_ + 2 < in_.size() && in_[pos_ + 2] == '<') {
      return NotSupported("a named back-reference (\\k<name>)");
    }
    if (in_class) {
      return Error("has an escape in a class that is not valid in a u-flag ECMAScript pattern (\\ and a "
                   "letter, digit or _ other than d D w W s S b t n v f r c x u 0)");
    }
    return Error("has an escape that is not valid in a u-flag ECMAScript pattern (\\ and a letter, digit "
                 "or _ other than d D w W s S b B t n v f r c x u 0-9)");
  }

  // A '{' at pos_: a quantifier ({n}, {n,}, {n,m}) is passed on if its counts are at
  // most kMaxRepeat. Beyond that the engines part ways — RE2 refuses the count or, past its
  // integer range, reads the braces as text, and std::regex wraps it around — so it is
  // refused, closed or not. Any other '{' is passed on as it is.
  Status Brace() {
    static constexpr uint64_t kMaxRepeat = 1000;  // RE2's limit
    size_t at = pos_ + 1;
    bool too_many = false;
    for (int part = 0; part < 2; ++part) {
      const size_t digits_start = at;
      uint64_t count = 0;
      while (at < in_.size() && in_[at] >= '0' && in_[at] <= '9') {
        count = std::min<uint64_t>(count * 10 + static_cast<uint64_t>(in_[at] - '0'), kMaxRepeat + 1);
        ++at;
      }
      if (at > digits_start) {
        too_many = too_many || count > kMaxRepeat;
      } else if (part == 0) {
        break;  // "{" not followed by a count: a literal
      }
      if (part == 0 && at < in_.size() && in_[at] == ',') {
        ++at;
      } else {
        break;
      }
    }
    // Even unclosed: std::regex reads the count before it finds the brace missing.
    if (too_many) return Error("has a repeat count above 1000");
    out_ += '{';
    ++pos_;
    return Status::Ok();
  }

  Result<char32_t> DecodeNext() {
    std::optional<char32_t> cp = DecodeUtf8(in_, &pos_);
    if (!cp) return Error("is not valid UTF-8");
    return *cp;
  }

  std::optional<uint32_t> Hex(size_t at, size_t digits) const {
    if (at + digits > in_.size()) return std::nullopt;
    uint32_t v = 0;
    for (size_t k = 0; k < digits; ++k) {
      const char h = in_[at + k];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<uint32_t>(h - 'A' + 10);
      else return std::nullopt;
    }
    return v;
  }

  // After a backslash at pos_: `\xHH` or `\uHHHH` (a surrogate pair `\uD83D\uDE00` is one
  // code point). nullopt when the escape is neither (or malformed: std::regex judges it).
  Result<std::optional<char32_t>> NumericEscape() {
    const char kind = pos_ + 1 < in_.size() ? in_[pos_ + 1] : '\0';
    if (kind == 'x') {
      if (auto v = Hex(pos_ + 2, 2)) {
        pos_ += 4;
        return std::optional<char32_t>(*v);
      }
    } else if (kind == 'u') {
      if (auto v = Hex(pos_ + 2, 4)) {
        pos_ += 6;
        if (*v >= 0xD800 && *v <= 0xDBFF && in_.substr(pos_, 2) == "\\u") {
          if (auto low = Hex(pos_ + 2, 4); low && *low >= 0xDC00 && *low <= 0xDFFF) {
            pos_ += 6;
            return std::optional<char32_t>(0x10000 + ((*v - 0xD800) << 10) + (*low - 0xDC00));
          }
        }
        if (*v >= 0xD800 && *v <= 0xDFFF) return Error("names a lone surrogate (\\u escape)");
        return std::optional<char32_t>(*v);
      }
    }
    return std::optional<char32_t>();
  }

  // `\d` `\D` `\w` `\W` `\s` `\S` at pos_ (consumed), else nullopt.
  std::optional<CodePointSet> ClassEscape() {
    if (pos_ + 1 >= in_.size()) return std::nullopt;
    CodePointSet set;
    switch (in_[pos_ + 1]) {
      case 'd': set = Digits(); break;
      case 'D': set = Digits().Complement(); break;
      case 'w': set = WordCharacters(); break;
      case 'W': set = WordCharacters().Complement(); break;
      case 's': set = WhiteSpace(); break;
      case 'S': set = WhiteSpace().Complement(); break;
      default: return std::nullopt;
    }
    pos_ += 2;
    return set;
  }

  Status Escape() {
    const char kind = pos_ + 1 < in_.size() ? in_[pos_ + 1] : '\0';
    if (kind == 'd' || kind == 'w') {  // ASCII on both readings: kept
      out_ += in_.substr(pos_, 2);
      pos_ += 2;
      return Status::Ok();
    }
    if (auto set = ClassEscape()) {
      out_ += Emit(*set);
      return Status::Ok();
    }
    Result<std::optional<char32_t>> numeric = NumericEscape();
    if (!numeric.ok()) return numeric.status();
    if (*numeric) {
      out_ += Emit(Single(**numeric));
      return Status::Ok();
    }
    if (pos_ + 1 < in_.size() && static_cast<unsigned char>(in_[pos_ + 1]) >= 0x80) {  // `\é`: the character
      ++pos_;
      Result<char32_t> cp = DecodeNext();
      if (!cp.ok()) return cp.status();
      out_ += Emit(Single(*cp));
      return Status::Ok();
    }
    if (pos_ + 1 >= in_.size()) {  // a trailing backslash: std::regex refuses it
      out_ += '\\';
      ++pos_;
      return Status::Ok();
    }
    const char e = in_[pos_ + 1];
    if (e == '\0') {
      out_ += "\\x00";
    } else if (e >= '1' && e <= '9' && pos_ + 2 < in_.size() && in_[pos_ + 2] >= '0' &&
               in_[pos_ + 2] <= '9') {
      // A back-reference past \9 (refused like every back-reference, linear_regex.h): std::regex
      // would read its number without bound.
      return Error("has a back-reference numbered above 9");
    } else if (std::string_view("bBtnvfr123456789").find(e) != std::string_view::npos) {
      out_ += in_.substr(pos_, 2);  // the same on every engine (back-references: see linear_regex.h)
    } else if (e == '0') {
      if (pos_ + 2 < in_.size() && in_[pos_ + 2] >= '0' && in_[pos_ + 2] <= '9') {
        return Error("has a \\0 followed by a digit (an octal escape in ECMAScript's Annex B)");
      }
      out_ += Emit(Single(0));
    } else if (e == 'c') {
      if (pos_ + 2 >= in_.size() || (in_[pos_ + 2] | 0x20) < 'a' || (in_[pos_ + 2] | 0x20) > 'z') {
        return Error("has a \\c escape without a control letter");
      }
      out_ += Emit(Single(static_cast<char32_t>(in_[pos_ + 2] % 32)));
      ++pos_;
    } else if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || e == '_' || (e >= '0' && e <= '9')) {
      return UnknownEscape(e, /*in_class=*/false);
    } else {
      out_ += Emit(Single(static_cast<unsigned char>(e)));  // an escaped punctuation mark: itself
    }
    pos_ += 2;
    return Status::Ok();
  }

  // One class member's character at pos_ (a literal, a numeric or single-character
  // escape), or a class escape's set.
  Result<CodePointSet> ClassAtom(std::optional<char32_t>* single) {
    *single = std::nullopt;
    if (in_[pos_] != '\\') {
      Result<char32_t> cp = DecodeNext();
      if (!cp.ok()) return cp.status();
      *single = *cp;
      return Single(*cp);
    }
    if (auto set = ClassEscape()) return *set;
    Result<std::optional<char32_t>> numeric = NumericEscape();
    if (!numeric.ok()) return numeric.status();
    if (*numeric) {
      *single = **numeric;
      return Single(**numeric);
    }
    if (pos_ + 1 >= in_.size()) return Error("has a class that is not closed");
    ++pos_;
    char32_t c = 0;
    switch (in_[pos_]) {
      case 'b': c = 0x08; break;  // backspace, inside a class
      case 't': c = '\t'; break;
      case 'n': c = '\n'; break;
      case 'v': c = '\v'; break;
      case 'f': c = '\f'; break;
      case 'r': c = '\r'; break;
      case '0': c = 0; break;
      case 'c':
        if (pos_ + 1 >= in_.size() || (in_[pos_ + 1] | 0x20) < 'a' || (in_[pos_ + 1] | 0x20) > 'z') {
          return Error("has a \\c escape without a control letter");
        }
        c = static_cast<char32_t>(in_[pos_ + 1] % 32);
        ++pos_;
        break;
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        return Error("has a \\1-\\9 escape in a class (an octal escape in ECMAScript's Annex B)");
      default: {
        const char e = in_[pos_];
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || e == '_') {
          // As outside a class: `[\q]` is no class of "q" in a u-flag pattern, and
          // `[\p{Lu}]` is a class of upper-case letters, not of "p", "{", "L", "u", "}".
          --pos_;
          return UnknownEscape(e, /*in_class=*/true);
        }
        Result<char32_t> cp = DecodeNext();  // identity escape: the character itself
        if (!cp.ok()) return cp.status();
        *single = *cp;
        return Single(*cp);
      }
    }
    ++pos_;
    *single = c;
    return Single(c);
  }

  Result<CodePointSet> Class() {
    ++pos_;  // '['
    const bool negated = pos_ < in_.size() && in_[pos_] == '^';
    if (negated) ++pos_;
    CodePointSet set;
    while (true) {
      if (pos_ >= in_.size()) return Error("has a class that is not closed");
      if (in_[pos_] == ']') {
        ++pos_;
        break;
      }
      std::optional<char32_t> first;
      Result<CodePointSet> atom = ClassAtom(&first);
      if (!atom.ok()) return atom.status();
      // A range "a-b" (a '-' that is not the class's last character).
      if (first && pos_ + 1 < in_.size() && in_[pos_] == '-' && in_[pos_ + 1] != ']') {
        ++pos_;
        std::optional<char32_t> last;
        Result<CodePointSet> end = ClassAtom(&last);
        if (!end.ok()) return end.status();
        if (!last) {  // "a-\d": Annex B reads the '-' literally
          set.Add(*atom);
          set.Add('-', '-');
          set.Add(*end);
          continue;
        }
        if (*last < *first) return Error("has a reversed class range");
        set.Add(*first, *last);
        continue;
      }
      set.Add(*atom);
    }
    return negated ? set.Complement() : set;
  }

  std::string Emit(const CodePointSet& set) const {
    return target_ == PatternTarget::kRe2CodePoints ? EmitCodePoints(set) : EmitUtf8Bytes(set);
  }

  std::string_view in_;
  PatternTarget target_;
  size_t pos_ = 0;
  std::string out_;
};

}  // namespace

Result<std::string> TranslatePattern(std::string_view pattern, PatternTarget target) {
  return Translator(pattern, target).Run();
}

Result<std::string> TranslatePatternToUtf8(std::string_view pattern) {
  return TranslatePattern(pattern, PatternTarget::kStdRegexUtf8Bytes);
}

}  // namespace las::trust
