#include "transport/json_text.h"

#include "base/json_string.h"
#include "base/utf8.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

namespace las::transport {
namespace {

// Recursion is bounded by the depth limit; clamp absurd configurations so a caller
// cannot turn the limit into a stack overflow.
constexpr size_t kHardMaxDepth = 1024;

bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }


class Scanner {
 public:
  Scanner(std::string_view text, size_t max_depth,
          DuplicateKeys duplicates = DuplicateKeys::kAllowed)
      : s_(text),
        max_depth_(std::min(max_depth, kHardMaxDepth)),
        unique_keys_(duplicates == DuplicateKeys::kRejected) {}

  JsonTextError error() const { return error_; }
  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }

  void SkipWs() {
    while (!AtEnd() && IsWs(s_[pos_])) ++pos_;
  }

  bool Fail(JsonTextError e) {
    if (error_ == JsonTextError::kNone) error_ = e;
    return false;
  }

  // One value; `depth` containers are already open around it.
  bool Value(size_t depth) {
    SkipWs();
    if (AtEnd()) return Fail(JsonTextError::kSyntax);
    switch (s_[pos_]) {
      case '{': return Object(depth + 1, nullptr);
      case '[': return Array(depth + 1, nullptr);
      case '"': return String(nullptr);
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default: return Number();
    }
  }

  // `depth` counts this object. With `members`, records this object's members.
  bool Object(size_t depth, std::vector<JsonMember>* members) {
    if (depth > max_depth_) return Fail(JsonTextError::kTooDeep);
    ++pos_;  // '{'
    SkipWs();
    if (Peek() == '}') { ++pos_; return true; }
    std::set<std::string> keys;  // with unique_keys_
    while (true) {
      SkipWs();
      if (Peek() != '"') return Fail(JsonTextError::kSyntax);
      std::string key;
      if (!String(members || unique_keys_ ? &key : nullptr)) return false;
      if (unique_keys_ && !keys.insert(key).second) return Fail(JsonTextError::kDuplicateKey);
      SkipWs();
      if (Peek() != ':') return Fail(JsonTextError::kSyntax);
      ++pos_;
      SkipWs();
      size_t start = pos_;
      if (!Value(depth)) return false;
      if (members) {
        std::string_view raw = s_.substr(start, pos_ - start);
        members->push_back(JsonMember{std::move(key), raw, JsonTypeOf(raw)});
      }
      SkipWs();
      if (Peek() == ',') { ++pos_; continue; }
      if (Peek() == '}') { ++pos_; return true; }
      return Fail(JsonTextError::kSyntax);
    }
  }

  bool Array(size_t depth, std::vector<std::string_view>* elements) {
    if (depth > max_depth_) return Fail(JsonTextError::kTooDeep);
    ++pos_;  // '['
    SkipWs();
    if (Peek() == ']') { ++pos_; return true; }
    while (true) {
      SkipWs();
      size_t start = pos_;
      if (!Value(depth)) return false;
      if (elements) elements->push_back(s_.substr(start, pos_ - start));
      SkipWs();
      if (Peek() == ',') { ++pos_; continue; }
      if (Peek() == ']') { ++pos_; return true; }
      return Fail(JsonTextError::kSyntax);
    }
  }

  // A string token at pos_ (which holds '"'). Raw bytes >= 0x80 are copied; their UTF-8
  // well-formedness is checked by the caller over the whole text.
  bool String(std::string* out) {
    ++pos_;  // '"'
    while (true) {
      if (AtEnd()) return Fail(JsonTextError::kSyntax);
      char c = s_[pos_];
      if (c == '"') { ++pos_; return true; }
      if (static_cast<unsigned char>(c) < 0x20) return Fail(JsonTextError::kSyntax);
      if (c != '\\') {
        if (out) out->push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (AtEnd()) return Fail(JsonTextError::kSyntax);
      char e = s_[pos_++];
      char simple = 0;
      switch (e) {
        case '"': simple = '"'; break;
        case '\\': simple = '\\'; break;
        case '/': simple = '/'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'u': break;
        default: return Fail(JsonTextError::kSyntax);
      }
      if (simple != 0) {
        if (out) out->push_back(simple);
        continue;
      }
      uint32_t cp = 0;
      if (!Hex4(&cp)) return false;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail(JsonTextError::kInvalidUtf8);
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (s_.substr(pos_, 2) != "\\u") return Fail(JsonTextError::kInvalidUtf8);
        pos_ += 2;
        uint32_t low = 0;
        if (!Hex4(&low)) return false;
        if (low < 0xDC00 || low > 0xDFFF) return Fail(JsonTextError::kInvalidUtf8);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      if (out) AppendUtf8(cp, *out);
    }
  }

  bool Hex4(uint32_t* cp) {
    const std::optional<char32_t> unit = JsonEscapeUnit(s_.substr(pos_));
    if (!unit) return Fail(JsonTextError::kSyntax);
    pos_ += 4;
    *cp = *unit;
    return true;
  }

  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return Fail(JsonTextError::kSyntax);
    pos_ += word.size();
    return true;
  }

  bool Number() {
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
    } else if (IsDigit(Peek())) {
      while (IsDigit(Peek())) ++pos_;
    } else {
      return Fail(JsonTextError::kSyntax);
    }
    if (Peek() == '.') {
      ++pos_;
      if (!IsDigit(Peek())) return Fail(JsonTextError::kSyntax);
      while (IsDigit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!IsDigit(Peek())) return Fail(JsonTextError::kSyntax);
      while (IsDigit(Peek())) ++pos_;
    }
    return true;
  }

 private:
  std::string_view s_;
  size_t max_depth_;
  bool unique_keys_;
  size_t pos_ = 0;
  JsonTextError error_ = JsonTextError::kNone;
};

// Where the value starting at `text[pos]` ends, read only for its shape: strings to their
// closing quote, containers to their matching bracket with no depth limit, scalars to the
// next delimiter; escapes, UTF-8 and the grammar inside are not checked. nullopt when the
// text ends first. For salvaging an id beside a value too deep or malformed to parse.
std::optional<size_t> SkipValueLeniently(std::string_view text, size_t pos) {
  size_t depth = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '"') {
      for (++pos; pos < text.size() && text[pos] != '"'; ++pos) {
        if (text[pos] == '\\') ++pos;
      }
      if (pos >= text.size()) return std::nullopt;
      ++pos;
    } else if (c == '{' || c == '[') {
      ++depth;
      ++pos;
      continue;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return pos;  // closes the container around the value
      --depth;
      ++pos;
    } else if (depth > 0 || IsWs(c)) {
      ++pos;
      continue;
    } else {
      while (pos < text.size() && std::string_view(",}] \t\r\n").find(text[pos]) == std::string_view::npos) {
        ++pos;
      }
      return pos < text.size() ? std::optional<size_t>(pos) : std::nullopt;
    }
    if (depth == 0) return pos;
  }
  return std::nullopt;
}

// Runs `top` (which scans the value at the start) and checks nothing but whitespace
// follows; UTF-8 is checked first over the whole text.
template <typename Top>
JsonTextError ScanWhole(std::string_view text, size_t max_depth, Top top,
                        DuplicateKeys duplicates = DuplicateKeys::kAllowed) {
  if (FindInvalidUtf8(text)) return JsonTextError::kInvalidUtf8;
  Scanner sc(text, max_depth, duplicates);
  sc.SkipWs();
  if (!top(sc)) return sc.error();
  sc.SkipWs();
  if (!sc.AtEnd()) return JsonTextError::kSyntax;
  return JsonTextError::kNone;
}

}  // namespace

std::string_view JsonTextErrorName(JsonTextError error) {
  switch (error) {
    case JsonTextError::kNone: return "none";
    case JsonTextError::kSyntax: return "syntax";
    case JsonTextError::kTooDeep: return "too_deep";
    case JsonTextError::kInvalidUtf8: return "invalid_utf8";
    case JsonTextError::kDuplicateKey: return "duplicate_key";
  }
  return "unknown";
}

JsonType JsonTypeOf(std::string_view raw) {
  if (raw.empty()) return JsonType::kNull;
  switch (raw.front()) {
    case '{': return JsonType::kObject;
    case '[': return JsonType::kArray;
    case '"': return JsonType::kString;
    case 't':
    case 'f': return JsonType::kBool;
    case 'n': return JsonType::kNull;
    default: return JsonType::kNumber;
  }
}

JsonTextError ValidateJson(std::string_view text, size_t max_depth) {
  return ScanWhole(text, max_depth, [](Scanner& sc) { return sc.Value(0); });
}

JsonTextError ObjectMembers(std::string_view text, std::vector<JsonMember>* members,
                            size_t max_depth, bool* is_object, DuplicateKeys duplicates) {
  members->clear();
  bool object = false;
  JsonTextError err = ScanWhole(
      text, max_depth,
      [&](Scanner& sc) {
        if (sc.Peek() == '{') {
          object = true;
          return sc.Object(1, members);
        }
        return sc.Value(0);
      },
      duplicates);
  if (is_object) *is_object = object;
  if (err == JsonTextError::kNone && !object) return JsonTextError::kSyntax;
  return err;
}

JsonTextError ArrayElements(std::string_view text, std::vector<std::string_view>* elements,
                            size_t max_depth) {
  elements->clear();
  bool array = false;
  JsonTextError err = ScanWhole(text, max_depth, [&](Scanner& sc) {
    if (sc.Peek() == '[') {
      array = true;
      return sc.Array(1, elements);
    }
    return sc.Value(0);
  });
  if (err == JsonTextError::kNone && !array) return JsonTextError::kSyntax;
  return err;
}

std::optional<std::string> DecodeJsonString(std::string_view raw) {
  if (raw.empty() || raw.front() != '"' || FindInvalidUtf8(raw)) return std::nullopt;
  Scanner sc(raw, 0);
  std::string out;
  if (!sc.String(&out) || !sc.AtEnd()) return std::nullopt;
  return out;
}

std::string QuoteJsonString(std::string_view value) {
  std::string out;
  AppendJsonString(value, out);
  return out;
}

namespace {

size_t SkipWsFrom(std::string_view text, size_t pos) {
  while (pos < text.size() && IsWs(text[pos])) ++pos;
  return pos;
}

// Walks the members of the object `text` begins with, in order, as far as their shape can
// be read (the object may be cut off, too deep or malformed further on): calls
// `visit(name, value_start)` for each — `name` null when the key is no valid string — and
// goes on while it returns true, skipping each value by its shape (SkipValueLeniently).
template <typename Visit>
void WalkTopLevelMembers(std::string_view text, Visit visit) {
  size_t pos = SkipWsFrom(text, 0);
  if (pos >= text.size() || text[pos] != '{') return;
  pos = SkipWsFrom(text, pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    Scanner key(text.substr(pos), 0);
    std::string name;
    const bool named = key.String(&name);
    const std::optional<size_t> after_key =
        named ? std::optional<size_t>(pos + key.pos()) : SkipValueLeniently(text, pos);
    if (!after_key) return;
    pos = SkipWsFrom(text, *after_key);
    if (pos >= text.size() || text[pos] != ':') return;
    const size_t value_start = SkipWsFrom(text, pos + 1);
    if (!visit(named ? &name : nullptr, value_start)) return;
    const std::optional<size_t> value_end = SkipValueLeniently(text, value_start);
    if (!value_end) return;
    pos = SkipWsFrom(text, *value_end);
    if (pos >= text.size() || text[pos] != ',') return;
    pos = SkipWsFrom(text, pos + 1);
  }
}

}  // namespace

std::optional<std::string> SalvageTopLevelMember(std::string_view prefix, std::string_view key,
                                                 size_t max_depth) {
  // Only `key`'s value is read strictly; the members before it are skipped by their shape,
  // so an id written after a value nested too deep, or holding a lone surrogate escape, can
  // still be read (probe AR3).
  std::optional<std::string> found;
  WalkTopLevelMembers(prefix, [&](const std::string* name, size_t start) {
    if (name == nullptr || *name != key) return true;
    Scanner value(prefix.substr(start), max_depth);
    if (!value.Value(1)) return false;
    const size_t next = SkipWsFrom(prefix, start + value.pos());
    // At the end of the text the value might continue past the cut.
    if (next >= prefix.size() || (prefix[next] != ',' && prefix[next] != '}')) return false;
    const std::string_view raw = prefix.substr(start, value.pos());
    const JsonType type = JsonTypeOf(raw);
    if ((type == JsonType::kString || type == JsonType::kNumber) && !FindInvalidUtf8(raw)) {
      found = std::string(raw);
    }
    return false;
  });
  return found;
}

std::vector<std::string_view> SalvageArrayElements(std::string_view text) {
  std::vector<std::string_view> elements;
  size_t pos = SkipWsFrom(text, 0);
  if (pos >= text.size() || text[pos] != '[') return elements;
  pos = SkipWsFrom(text, pos + 1);
  while (pos < text.size()) {
    const std::optional<size_t> end = SkipValueLeniently(text, pos);
    if (!end || *end == pos) break;
    elements.push_back(text.substr(pos, *end - pos));
    pos = SkipWsFrom(text, *end);
    if (pos >= text.size() || text[pos] != ',') break;
    pos = SkipWsFrom(text, pos + 1);
  }
  return elements;
}

bool ShowsTopLevelMember(std::string_view prefix, std::string_view key) {
  bool shown = false;
  WalkTopLevelMembers(prefix, [&](const std::string* name, size_t) {
    shown = name != nullptr && *name == key;
    return !shown;
  });
  return shown;
}

bool ShowsTopLevelMemberTwice(std::string_view prefix, std::string_view key) {
  int shown = 0;
  WalkTopLevelMembers(prefix, [&](const std::string* name, size_t) {
    if (name != nullptr && *name == key) ++shown;
    return shown < 2;
  });
  return shown >= 2;
}

std::optional<std::string> SalvageTrailingMember(std::string_view suffix, std::string_view key) {
  // Read backwards: '}', the number or string, ':', "key", then ',' or '{'.
  auto trim_ws = [&suffix] {
    while (!suffix.empty() && IsWs(suffix.back())) suffix.remove_suffix(1);
  };
  auto take = [&suffix](char c) {
    if (suffix.empty() || suffix.back() != c) return false;
    suffix.remove_suffix(1);
    return true;
  };
  trim_ws();
  if (!take('}')) return std::nullopt;
  trim_ws();
  const size_t end = suffix.size();
  if (!suffix.empty() && suffix.back() == '"') {
    // The string's opening quote: the first quote before it that no odd run of
    // backslashes escapes. A run reaching the cut could be either: none then.
    suffix.remove_suffix(1);
    while (true) {
      const size_t quote = suffix.rfind('"');
      if (quote == std::string_view::npos) return std::nullopt;
      size_t slashes = 0;
      while (slashes < quote && suffix[quote - 1 - slashes] == '\\') ++slashes;
      if (slashes == quote && slashes > 0) return std::nullopt;
      suffix = suffix.substr(0, quote);
      if (slashes % 2 == 0) break;
    }
  } else {
    while (!suffix.empty() && std::string_view("0123456789+-.eE").find(suffix.back()) != std::string_view::npos) {
      suffix.remove_suffix(1);
    }
  }
  const std::string_view value(suffix.data() + suffix.size(), end - suffix.size());
  Scanner sc(value, 1);
  if (value.empty() || !sc.Value(0) || !sc.AtEnd() || FindInvalidUtf8(value)) {
    return std::nullopt;
  }
  trim_ws();
  if (!take(':')) return std::nullopt;
  trim_ws();
  const std::string quoted = "\"" + std::string(key) + "\"";
  if (suffix.size() < quoted.size() || suffix.substr(suffix.size() - quoted.size()) != quoted) {
    return std::nullopt;
  }
  suffix.remove_suffix(quoted.size());
  trim_ws();
  if (suffix.empty() || (suffix.back() != ',' && suffix.back() != '{')) return std::nullopt;
  return std::string(value);
}

std::string_view WithoutByteOrderMark(std::string_view line) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (line.starts_with(kByteOrderMark)) line.remove_prefix(kByteOrderMark.size());
  return line;
}

std::optional<size_t> FindInvalidUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (n - i < len) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::nullopt;
}

}  // namespace las::transport
