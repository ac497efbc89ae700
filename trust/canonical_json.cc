#include "trust/canonical_json.h"

#include "base/json_string.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "base/out_of_memory.h"
#include "trust/canonical_json_internal.h"

namespace las::trust {

Result<std::string> FormatJcsNumber(double value) {
  if (!std::isfinite(value)) return InvalidArgument("NaN and infinity have no JSON form");
  if (value == 0) return std::string("0");  // both +0 and -0 (ES prints -0 as "0")

  // std::to_chars without a precision yields the shortest digit string that round-trips,
  // choosing the one closest to the exact value on ties: the same digits ECMAScript's
  // Number::toString specifies (ECMA-262 sec. 6.1.6.1.20, steps 5 onward). Scientific
  // format makes digits and exponent easy to pick apart; ES then decides the layout.
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  if (ec != std::errc()) return InvalidArgument("cannot format number");
  std::string_view sci(buf, static_cast<size_t>(end - buf));  // "-d.ddde-XX"

  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  const std::string_view exp_text = sci.substr(e_pos + 1);
  const char* exp_begin = exp_text.data() + (exp_text.front() == '+' ? 1 : 0);
  std::from_chars(exp_begin, exp_text.data() + exp_text.size(), exp10);

  // ES names: value = 0.d1d2...dk × 10^n, i.e. n = exp10 + 1, k = number of digits.
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<size_t>(n));
    out.push_back('.');
    out += digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out += digits.substr(1);
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

namespace {

using internal::Json;

// Decodes valid UTF-8 (checked by the caller) into UTF-16 code units, the order JCS
// sorts keys by. It differs from UTF-8 byte order: U+E000..U+FFFF sort after
// supplementary characters, whose surrogates start at 0xD800.
std::u16string ToUtf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<uint8_t>(s[i]);
    uint32_t cp = 0;
    size_t len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if (b0 < 0xE0) {
      cp = b0 & 0x1Fu, len = 2;
    } else if (b0 < 0xF0) {
      cp = b0 & 0x0Fu, len = 3;
    } else {
      cp = b0 & 0x07u, len = 4;
    }
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3Fu);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

Status AppendString(std::string_view s, std::string& out) {
  if (FindInvalidUtf8(s)) return InvalidArgument("string is not valid UTF-8");
  AppendJsonString(s, out);
  return Status::Ok();
}

Status AppendNumber(double value, std::string& out) {
  Result<std::string> text = FormatJcsNumber(value);
  if (!text.ok()) return text.status();
  out += *text;
  return Status::Ok();
}

Status AppendValue(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::value_t::null: out += "null"; return Status::Ok();
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return Status::Ok();
    // JCS numbers are doubles; int64/uint64 convert with round-to-nearest, which is
    // what strtod would have produced from the same digits.
    case Json::value_t::number_integer:
      return AppendNumber(static_cast<double>(v.get<int64_t>()), out);
    case Json::value_t::number_unsigned:
      return AppendNumber(static_cast<double>(v.get<uint64_t>()), out);
    case Json::value_t::number_float: return AppendNumber(v.get<double>(), out);
    case Json::value_t::string: return AppendString(v.get_ref<const std::string&>(), out);
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const Json& element : v) {
        if (!first) out.push_back(',');
        first = false;
        LAS_RETURN_IF_ERROR(AppendValue(element, out));
      }
      out.push_back(']');
      return Status::Ok();
    }
    case Json::value_t::object: {
      std::vector<std::pair<std::u16string, Json::const_iterator>> members;
      members.reserve(v.size());
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (FindInvalidUtf8(it.key())) return InvalidArgument("object key is not valid UTF-8");
        members.emplace_back(ToUtf16(it.key()), it);
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      bool first = true;
      for (const auto& [sort_key, it] : members) {
        if (!first) out.push_back(',');
        first = false;
        LAS_RETURN_IF_ERROR(AppendString(it.key(), out));
        out.push_back(':');
        LAS_RETURN_IF_ERROR(AppendValue(it.value(), out));
      }
      out.push_back('}');
      return Status::Ok();
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  return InvalidArgument("value has no JSON form");
}

}  // namespace

namespace internal {

Result<std::string> CanonicalJsonOf(const Json& value) {
  std::string out;
  try {
    LAS_RETURN_IF_ERROR(AppendValue(value, out));
  } catch (const std::bad_alloc&) {
    return OutOfMemory("canonicalizing JSON");
  } catch (const std::exception& ex) {
    return InvalidArgument(std::string("cannot canonicalize JSON: ") + ex.what());
  }
  return out;
}

}  // namespace internal

Result<std::string> CanonicalizeJson(std::string_view json_text, const StrictJsonLimits& limits) {
  Result<internal::Json> parsed = internal::ParseStrictJson(json_text, limits);
  if (!parsed.ok()) return parsed.status();
  return internal::CanonicalJsonOf(*parsed);
}

}  // namespace las::trust
