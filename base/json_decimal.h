// The exact value of a JSON number token as a decimal, with no double in between: two
// tokens name the same number exactly when their JsonDecimals are equal ("1.50" and
// "15e-1", "7.3918264e7" and "73918264", "-0.0" and "0"). Used where a number's text must
// be compared with a value exactly (trust/strict_json.cc: a token that says more than its
// double; tools/credentials.cc: a number that spells a numeric credential).
#pragma once

#include <string>
#include <string_view>

namespace las {

// value = (negative ? -1 : 1) × digits × 10^exponent.
struct JsonDecimal {
  bool negative = false;  // false for zero
  std::string digits;     // no leading or trailing zeros; empty for zero
  long long exponent = 0;
  bool operator==(const JsonDecimal&) const = default;
};

// `token`: an optional '-', decimal digits, an optional '.' and digits, an optional 'e' or
// 'E' with an optional sign and digits — a JSON number token (leading zeros allowed) or
// std::to_chars output; the caller has checked that shape (a JSON parser has accepted the
// token). An exponent as written is capped at 10^9 in magnitude: far beyond any double and
// any digit string worth comparing, and it keeps the arithmetic in range, so
// "1e999999999999" costs its length and no more.
JsonDecimal ParseJsonDecimal(std::string_view token);

}  // namespace las
