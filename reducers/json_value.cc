#include "reducers/json_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>

#include "base/json_string.h"
#include "base/utf8.h"

namespace las::reducers {
namespace {

// 2^53: every integer of smaller magnitude is exactly a double.
constexpr double kExactIntegerLimit = 9007199254740992.0;

class Parser {
 public:
  Parser(std::string_view text, const JsonLimits& limits) : s_(text), limits_(limits) {}

  Result<JsonValue> Run() {
    if (s_.size() > limits_.max_bytes) {
      return InvalidArgument("JSON text is " + std::to_string(s_.size()) +
                             " bytes, more than the limit of " +
                             std::to_string(limits_.max_bytes));
    }
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") return InvalidArgument("JSON text starts with a byte-order mark");
    JsonValue value;
    SkipSpace();
    if (!Value(value, 0)) return InvalidArgument(error_);
    SkipSpace();
    if (pos_ != s_.size()) return InvalidArgument(At("text after the JSON value"));
    return value;
  }

 private:
  std::string At(std::string_view what) const {
    return std::string(what) + " at byte " + std::to_string(pos_);
  }
  bool Fail(std::string_view what) {
    error_ = At(what);
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return Fail("invalid JSON token");
    pos_ += word.size();
    return true;
  }

  bool Value(JsonValue& out, size_t depth) {
    if (pos_ >= s_.size()) return Fail("unexpected end of JSON text");
    const char c = s_[pos_];
    switch (c) {
      case 'n': out.kind = JsonValue::Kind::kNull; return Literal("null");
      case 't': out.kind = JsonValue::Kind::kBool; out.boolean = true; return Literal("true");
      case 'f': out.kind = JsonValue::Kind::kBool; out.boolean = false; return Literal("false");
      case '"': out.kind = JsonValue::Kind::kString; return String(out.text);
      case '[': return Array(out, depth + 1);
      case '{': return Object(out, depth + 1);
      case 'N': return Fail("NaN is not a JSON number");
      case 'I': return Fail("Infinity is not a JSON number");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
        return Fail("invalid JSON token");
    }
  }

  bool Array(JsonValue& out, size_t depth) {
    if (depth > limits_.max_depth) return Fail("JSON nests too deep");
    out.kind = JsonValue::Kind::kArray;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      JsonValue::Elements& elements = out.array();
      elements.emplace_back();
      SkipSpace();
      if (!Value(elements.back(), depth)) return false;
      SkipSpace();
      if (pos_ >= s_.size()) return Fail("unterminated array");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return Fail("expected ',' or ']' in array");
    }
  }

  bool Object(JsonValue& out, size_t depth) {
    if (depth > limits_.max_depth) return Fail("JSON nests too deep");
    out.kind = JsonValue::Kind::kObject;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a string key in object");
      const size_t key_at = pos_;
      std::string key;
      if (!String(key)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':' after object key");
      ++pos_;
      SkipSpace();
      auto [slot, inserted] = out.object().try_emplace(std::move(key));
      if (!inserted) {
        pos_ = key_at;
        return Fail("duplicate object key");
      }
      if (!Value(slot->second, depth)) return false;
      SkipSpace();
      if (pos_ >= s_.size()) return Fail("unterminated object");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return Fail("expected ',' or '}' in object");
    }
  }

  bool Hex4(uint32_t& out) {
    if (pos_ + 4 > s_.size()) return Fail("truncated \\u escape");
    const std::optional<char32_t> unit = JsonEscapeUnit(s_.substr(pos_));
    if (!unit) return Fail("invalid \\u escape");
    pos_ += 4;
    out = *unit;
    return true;
  }

  // One well-formed UTF-8 sequence (RFC 3629 table 3-7) copied to `out`.
  bool Utf8(std::string& out) {
    auto at = [&](size_t k) { return static_cast<uint8_t>(s_[k]); };
    auto in = [](uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; };
    const uint8_t b0 = at(pos_);
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (in(b0, 0xC2, 0xDF)) len = 2;
    else if (b0 == 0xE0) len = 3, lo = 0xA0;
    else if (in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF)) len = 3;
    else if (b0 == 0xED) len = 3, hi = 0x9F;
    else if (b0 == 0xF0) len = 4, lo = 0x90;
    else if (in(b0, 0xF1, 0xF3)) len = 4;
    else if (b0 == 0xF4) len = 4, hi = 0x8F;
    else return Fail("invalid UTF-8");
    if (pos_ + 1 >= s_.size() || !in(at(pos_ + 1), lo, hi)) return Fail("invalid UTF-8");
    for (size_t k = 2; k < len; ++k) {
      if (pos_ + k >= s_.size() || !in(at(pos_ + k), 0x80, 0xBF)) return Fail("invalid UTF-8");
    }
    out.append(s_.substr(pos_, len));
    pos_ += len;
    return true;
  }

  bool String(std::string& out) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= s_.size()) return Fail("unterminated string");
      const auto c = static_cast<uint8_t>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("control character in string");
      if (c >= 0x80) {
        if (!Utf8(out)) return false;
        continue;
      }
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) return Fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("lone low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (s_.substr(pos_, 2) != "\\u") return Fail("lone high surrogate in \\u escape");
            pos_ += 2;
            if (!Hex4(low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return Fail("lone high surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return Fail("invalid escape in string");
      }
    }
  }

  bool Digits() {
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  // Whether `text`, a JSON number out of a double's range, is tiny rather than huge: by the
  // decimal place of its first significant digit, not by the exponent's sign alone (probe
  // DF1: 1000…0e-5 is huge, 0.000…01 tiny).
  static bool Underflows(std::string_view text) {
    if (text.starts_with('-')) text.remove_prefix(1);
    const size_t e = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, e);
    const size_t point = mantissa.find('.');
    const size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return true;  // zero
    const size_t units = point == std::string_view::npos ? mantissa.size() : point;
    // The power of ten of the first significant digit, before the exponent.
    int64_t place = static_cast<int64_t>(units) - static_cast<int64_t>(first) - 1;
    if (first > units) ++place;  // the '.' lies between
    int64_t exponent = 0;
    if (e != std::string_view::npos) {
      std::string_view digits = text.substr(e + 1);
      const bool negative = !digits.empty() && digits[0] == '-';
      if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
      for (char digit : digits) exponent = std::min<int64_t>(exponent * 10 + (digit - '0'), 1'000'000'000);
      if (negative) exponent = -exponent;
    }
    return place + exponent < 0;
  }

  bool Number(JsonValue& out) {
    const size_t start = pos_;
    out.kind = JsonValue::Kind::kNumber;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size()) return Fail("invalid number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else if (!Digits()) {
      if (s_.substr(pos_, 8) == "Infinity") return Fail("Infinity is not a JSON number");
      return Fail("invalid number");
    }
    bool integer = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      integer = false;
      if (!Digits()) return Fail("invalid number: digits expected after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      integer = false;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!Digits()) return Fail("invalid number: digits expected in exponent");
    }
    const std::string_view text = s_.substr(start, pos_ - start);
    out.integer = integer;
    if (integer) {
      out.text = text == "-0" ? std::string("0") : std::string(text);
      return true;
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
      // from_chars reports underflow as out of range too; a tiny number is zero.
      if (!Underflows(text)) {
        pos_ = start;
        return Fail("number is out of the range of a double");
      }
      value = 0;
    } else if (ec != std::errc() || end != text.data() + text.size()) {
      pos_ = start;
      return Fail("invalid number");
    }
    if (value == 0) value = 0;  // -0.0 and 0.0 alike
    // Below 2^53 every integral double is an exact integer: written as one (to_chars's
    // shortest form is 1e+15 for 1e15), it has the text of the equal integer, so `set_union`
    // sees one value (probe BX1). Beyond, a double keeps its shortest form.
    if (std::fabs(value) < kExactIntegerLimit && std::trunc(value) == value) {
      out.text = std::to_string(static_cast<int64_t>(value));
      out.integer = true;
      return true;
    }
    char buf[64];
    const auto [out_end, out_ec] = std::to_chars(buf, buf + sizeof buf, value);
    if (out_ec != std::errc()) return Fail("cannot format number");
    out.text.assign(buf, out_end);
    out.integer = out.text.find_first_of(".eE") == std::string::npos;
    return true;
  }

  std::string_view s_;
  const JsonLimits& limits_;
  size_t pos_ = 0;
  std::string error_;
};

// Compares two canonical integer texts numerically.
int CompareIntegers(std::string_view a, std::string_view b) {
  const bool na = !a.empty() && a[0] == '-';
  const bool nb = !b.empty() && b[0] == '-';
  if (na != nb) return na ? -1 : 1;
  if (na) {
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  int magnitude = 0;
  if (a.size() != b.size()) magnitude = a.size() < b.size() ? -1 : 1;
  else magnitude = a < b ? -1 : (a == b ? 0 : 1);
  return na ? -magnitude : magnitude;
}

double AsDouble(const JsonValue& v) {
  double value = 0;
  const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return v.text[0] == '-' ? -HUGE_VAL : HUGE_VAL;  // an integer beyond any double
  }
  (void)end;
  return value;
}

// The integer a double holds, in decimal; `integral` must have no fraction. glibc prints
// every double exactly.
std::string IntegralDoubleText(double integral) {
  if (integral == 0) return "0";  // not "-0"
  char text[400];
  std::snprintf(text, sizeof text, "%.0f", integral);
  return text;
}

// The order of an integer of any size (decimal text) and a finite double, exactly: rounding
// the integer to a double made 10^21 + 1 equal to 1e21, and `max` kept the smaller.
int CompareIntegerWithDouble(std::string_view integer, double x) {
  const double below = std::floor(x);
  const int against_below = CompareIntegers(integer, IntegralDoubleText(below));
  if (below == x) return against_below;
  return against_below <= 0 ? -1 : 1;  // x lies strictly between below and below + 1
}

}  // namespace

struct JsonValue::Containers {
  Elements elements;
  Members members;
};

void JsonValue::DeleteContainers::operator()(Containers* containers) const { delete containers; }

JsonValue::JsonValue(const JsonValue& other)
    : kind(other.kind), boolean(other.boolean), integer(other.integer), text(other.text) {
  if (other.containers_) containers_.reset(new Containers(*other.containers_));
}

JsonValue& JsonValue::operator=(const JsonValue& other) {
  if (this != &other) *this = JsonValue(other);
  return *this;
}

JsonValue::Containers& JsonValue::EnsureContainers() {
  if (!containers_) containers_.reset(new Containers());
  return *containers_;
}

const JsonValue::Elements& JsonValue::array() const {
  static const Elements kNone;
  return containers_ ? containers_->elements : kNone;
}
JsonValue::Elements& JsonValue::array() { return EnsureContainers().elements; }

const JsonValue::Members& JsonValue::object() const {
  static const Members kNone;
  return containers_ ? containers_->members : kNone;
}
JsonValue::Members& JsonValue::object() { return EnsureContainers().members; }

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  const Members& members = object();
  auto it = members.find(key);
  return it == members.end() ? nullptr : &it->second;
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case JsonValue::Kind::kNull: return true;
    case JsonValue::Kind::kBool: return a.boolean == b.boolean;
    case JsonValue::Kind::kNumber:
    case JsonValue::Kind::kString: return a.text == b.text;
    case JsonValue::Kind::kArray: return a.array() == b.array();
    case JsonValue::Kind::kObject: return a.object() == b.object();
  }
  return false;
}

Result<JsonValue> ParseJsonValue(std::string_view text, const JsonLimits& limits) {
  return Parser(text, limits).Run();
}

void AppendCanonical(const JsonValue& value, std::string& out) {
  switch (value.kind) {
    case JsonValue::Kind::kNull: out += "null"; return;
    case JsonValue::Kind::kBool: out += value.boolean ? "true" : "false"; return;
    case JsonValue::Kind::kNumber: out += value.text; return;
    case JsonValue::Kind::kString: AppendJsonString(value.text, out); return;
    case JsonValue::Kind::kArray: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value.array()) {
        if (!first) out.push_back(',');
        first = false;
        AppendCanonical(element, out);
      }
      out.push_back(']');
      return;
    }
    case JsonValue::Kind::kObject: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, member] : value.object()) {  // std::map: ascending byte order
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(key, out);
        out.push_back(':');
        AppendCanonical(member, out);
      }
      out.push_back('}');
      return;
    }
  }
}

size_t NestingDepth(const JsonValue& value) {
  size_t deepest = 0;
  for (const JsonValue& element : value.array()) deepest = std::max(deepest, NestingDepth(element));
  for (const auto& [key, member] : value.object()) deepest = std::max(deepest, NestingDepth(member));
  return value.is_array() || value.is_object() ? deepest + 1 : 0;
}

std::string CanonicalText(const JsonValue& value) {
  std::string out;
  AppendCanonical(value, out);
  return out;
}

Result<std::string> CanonicalizeJsonValue(std::string_view text, const JsonLimits& limits) {
  auto value = ParseJsonValue(text, limits);
  if (!value.ok()) return value.status();
  return CanonicalText(*value);
}

int CompareNumbers(const JsonValue& a, const JsonValue& b) {
  if (a.integer && b.integer) return CompareIntegers(a.text, b.text);
  if (a.integer) return CompareIntegerWithDouble(a.text, AsDouble(b));
  if (b.integer) return -CompareIntegerWithDouble(b.text, AsDouble(a));
  const double x = AsDouble(a);
  const double y = AsDouble(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace las::reducers
