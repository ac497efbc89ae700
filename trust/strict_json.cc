#include "trust/strict_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "base/json_decimal.h"
#include "base/out_of_memory.h"
#include "trust/strict_json_internal.h"

namespace las::trust {

std::optional<size_t> FindInvalidUtf8(std::string_view bytes) {
  size_t i = 0;
  const size_t n = bytes.size();
  auto at = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  auto in = [](uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; };
  while (i < n) {
    const uint8_t b0 = at(i);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    // Second-byte ranges exclude overlongs (E0, F0), surrogates (ED) and > U+10FFFF (F4).
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (in(b0, 0xC2, 0xDF)) {
      len = 2;
    } else if (b0 == 0xE0) {
      len = 3, lo = 0xA0;
    } else if (in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF)) {
      len = 3;
    } else if (b0 == 0xED) {
      len = 3, hi = 0x9F;
    } else if (b0 == 0xF0) {
      len = 4, lo = 0x90;
    } else if (in(b0, 0xF1, 0xF3)) {
      len = 4;
    } else if (b0 == 0xF4) {
      len = 4, hi = 0x8F;
    } else {
      return i;  // C0, C1, F5..FF, or a stray continuation byte
    }
    if (i + 1 >= n || !in(at(i + 1), lo, hi)) return i;
    for (size_t k = 2; k < len; ++k) {
      if (i + k >= n || !in(at(i + k), 0x80, 0xBF)) return i;
    }
    i += len;
  }
  return std::nullopt;
}

namespace {

using internal::Json;
using internal::JsonPath;

// nlohmann's parse error in the words of a message to an operator: without its "; last
// read: '...'", which quotes the input (the whole current token: a policy file's secret, an
// argument's value) into reports and the log, and without the library's own bracketed id
// and phrasing (probe BI4): "[json.exception.parse_error.101] parse error at line 1, column
// 2: syntax error while parsing value - invalid literal" is "syntax error at line 1, column
// 2: invalid literal".
std::string WithoutInput(std::string_view what) {
  what = what.substr(0, what.find("; last read: "));
  if (what.starts_with("[json.exception.")) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  constexpr std::string_view kParseError = "parse error at ";
  if (!what.starts_with(kParseError)) return std::string(what);
  what.remove_prefix(kParseError.size());
  const size_t colon = what.find(": ");
  if (colon == std::string_view::npos) return "syntax error at " + std::string(what);
  const std::string_view where = what.substr(0, colon);  // "line 1, column 2"
  std::string_view detail = what.substr(colon + 2);
  if (const size_t dash = detail.find(" - "); dash != std::string_view::npos) {
    detail.remove_prefix(dash + 3);  // "syntax error while parsing value - invalid literal"
  }
  detail = detail.substr(0, detail.find("; "));  // "; check that your input ... contains"
  return "syntax error at " + std::string(where) + ": " + std::string(detail);
}

// A JSON number token written as an integer: no fraction, no exponent.
bool IntegerSyntax(std::string_view token) { return token.find_first_of(".eE") == std::string_view::npos; }

// SAX handler that builds the DOM like nlohmann's own, but refuses duplicate keys,
// excessive depth and non-finite numbers, remembering where it was for the message.
class StrictDomBuilder : public internal::SaxHandlerTypes {
 public:
  StrictDomBuilder(Json& root, size_t max_depth, std::vector<JsonPath>* lost_precision,
                   std::vector<JsonPath>* inexact_integers)
      : root_(root), max_depth_(max_depth), lost_precision_(lost_precision),
        inexact_integers_(inexact_integers) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(number_integer_t v) { return Integer(v); }
  bool number_unsigned(number_unsigned_t v) { return Integer(v); }
  bool number_float(number_float_t v, const string_t& text) {
    if (!std::isfinite(v)) return OutOfRange();
    if ((lost_precision_ != nullptr || inexact_integers_ != nullptr) &&
        internal::LosesPrecisionAsDouble(v, text)) {
      if (lost_precision_ != nullptr) lost_precision_->push_back(NextValuePath());
      // Beyond 64 bits nlohmann reads an integer as a double.
      if (inexact_integers_ != nullptr && IntegerSyntax(text)) inexact_integers_->push_back(NextValuePath());
    }
    return Put(v);
  }
  bool string(string_t& v) { return Put(std::move(v)); }
  bool binary(binary_t& /*unused*/) { return Fail("binary value at " + Path()); }

  bool start_object(size_t /*unused*/) { return Open(Json::object()); }
  bool key(string_t& k) {
    Frame& top = frames_.back();
    if (top.node->contains(k)) {
      return Fail("duplicate object key \"" + k + "\" in the object at " +
                  Path(/*include_next=*/false));
    }
    top.key = std::move(k);
    top.has_key = true;
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(size_t /*unused*/) { return Open(Json::array()); }
  bool end_array() { return Close(); }

  bool parse_error(size_t /*position*/, const std::string& /*last_token*/,
                   const Json::exception& ex) {
    // 406: nlohmann's own check of a number beyond a double's range (1e400, 400 digits).
    if (ex.id == 406) return OutOfRange();
    return Fail("invalid JSON: " + WithoutInput(ex.what()));
  }

  const std::string& error() const { return error_; }

 private:
  // Without the number's text: it can be hundreds of digits, and it is a value.
  bool OutOfRange() { return Fail("number beyond a double's range at " + Path()); }

  struct Frame {
    Json* node;
    std::string key;  // objects: the key whose value comes next
    bool has_key = false;
  };

  // Stores `v` where the grammar says the next value goes; returns its address, which
  // stays valid while it is the innermost open container (a std::map node, or the last
  // element of a vector nobody appends to until this child closes).
  Json* Place(Json v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& top = frames_.back();
    if (top.node->is_array()) {
      top.node->push_back(std::move(v));
      return &top.node->back();
    }
    Json& slot = (*top.node)[top.key];
    slot = std::move(v);
    return &slot;
  }
  template <typename V>
  bool Put(V&& v) {
    Place(Json(std::forward<V>(v)));
    return true;
  }
  bool Open(Json container) {
    if (frames_.size() >= max_depth_) {
      return Fail("JSON nests deeper than " + std::to_string(max_depth_) + " at " + Path());
    }
    Json* node = Place(std::move(container));
    frames_.push_back(Frame{node, {}, false});
    return true;
  }
  bool Close() {
    frames_.pop_back();
    return true;
  }
  template <typename Int>
  bool Integer(Int v) {
    if (inexact_integers_ != nullptr && !internal::DoubleHoldsExactly(v)) {
      inexact_integers_->push_back(NextValuePath());
    }
    return Put(v);
  }
  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }
  // Where the parser is: "$.a[2].b". With include_next, the innermost frame contributes
  // the position of the value about to be stored; otherwise the path ends at that frame.
  // The keys and indices from the root to where the next value goes.
  JsonPath NextValuePath() const {
    JsonPath path;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.node->is_array()) {
        const size_t n = f.node->size();
        path.push_back(std::to_string(i + 1 == frames_.size() ? n : n - 1));
      } else if (f.has_key) {
        path.push_back(f.key);
      }
    }
    return path;
  }

  std::string Path(bool include_next = true) const {
    std::string path = "$";
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool innermost = i + 1 == frames_.size();
      if (innermost && !include_next) break;
      if (f.node->is_array()) {
        // Outer arrays hold the open child as their last element; the innermost array's
        // next value goes at index size().
        const size_t n = f.node->size();
        path += "[" + std::to_string(innermost ? n : n - 1) + "]";
      } else if (f.has_key) {
        path += "." + f.key;
      }
    }
    return path;
  }

  Json& root_;
  size_t max_depth_;
  std::vector<JsonPath>* lost_precision_;    // optional
  std::vector<JsonPath>* inexact_integers_;  // optional
  std::vector<Frame> frames_;
  std::string error_;
};

}  // namespace

namespace internal {

bool LosesPrecisionAsDouble(double v, std::string_view text) {
  // An integer written as one (beyond 64 bits, or nlohmann would not have made it a
  // double) means its exact digits: 100000000000000000000000 is not the double 1e23,
  // which is 99999999999999991611392. So it is compared with the double's exact value.
  const bool integer_syntax = IntegerSyntax(text);
  char digits[400];  // the largest double has 309 integer digits
  const auto written =
      integer_syntax
          ? std::to_chars(digits, digits + sizeof digits, v, std::chars_format::fixed, 0)
          : std::to_chars(digits, digits + sizeof digits, v);
  if (written.ec != std::errc()) return true;
  return ParseJsonDecimal(text) != ParseJsonDecimal(std::string_view(digits, written.ptr - digits));
}

Result<Json> ParseStrictJson(std::string_view text, const StrictJsonLimits& limits,
                             std::vector<JsonPath>* lost_precision,
                             std::vector<JsonPath>* inexact_integers) {
  if (text.size() > limits.max_bytes) {
    return InvalidArgument("JSON text is " + std::to_string(text.size()) +
                           " bytes, more than the limit of " + std::to_string(limits.max_bytes));
  }
  // nlohmann silently skips a leading UTF-8 BOM; RFC 8259 forbids emitting one.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return InvalidArgument("JSON text starts with a byte-order mark");
  }
  if (auto bad = FindInvalidUtf8(text)) {
    return InvalidArgument("JSON text is not valid UTF-8 at byte offset " +
                           std::to_string(*bad));
  }
  // nlohmann's lexer takes a NUL byte for the end of its input and would accept whatever
  // follows it; JSON text has no place for one (a string spells it \u0000).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidArgument("JSON text has a NUL byte at byte offset " + std::to_string(nul));
  }
  Json root;
  StrictDomBuilder builder(root, limits.max_depth, lost_precision, inexact_integers);
  try {
    const bool ok = Json::sax_parse(text.begin(), text.end(), &builder,
                                    Json::input_format_t::json, /*strict=*/true,
                                    /*ignore_comments=*/false);
    if (!ok) {
      return InvalidArgument(builder.error().empty() ? "invalid JSON" : builder.error());
    }
  } catch (const std::bad_alloc&) {
    return OutOfMemory("parsing JSON");
  } catch (const std::exception& ex) {
    return InvalidArgument("invalid JSON: " + WithoutInput(ex.what()));
  }
  return root;
}

}  // namespace internal

Status CheckStrictJson(std::string_view text, const StrictJsonLimits& limits) {
  Result<Json> parsed = internal::ParseStrictJson(text, limits);
  return parsed.ok() ? Status::Ok() : parsed.status();
}

}  // namespace las::trust
