#include "base/json_decimal.h"

#include <algorithm>

namespace las {

JsonDecimal ParseJsonDecimal(std::string_view text) {
  JsonDecimal d;
  size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::string digits;
  long long fraction_digits = 0;
  bool fraction = false;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      fraction = true;
      continue;
    }
    digits.push_back(text[i]);
    if (fraction) ++fraction_digits;
  }
  long long exponent = 0;
  if (i < text.size()) {
    ++i;
    bool negative_exponent = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative_exponent = text[i++] == '-';
    for (; i < text.size(); ++i) {
      exponent = std::min<long long>(exponent * 10 + (text[i] - '0'), 1'000'000'000);
    }
    if (negative_exponent) exponent = -exponent;
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return JsonDecimal{};  // zero, whatever its sign
  const size_t last = digits.find_last_not_of('0');
  d.digits = digits.substr(first, last - first + 1);
  d.exponent = exponent - fraction_digits + static_cast<long long>(digits.size() - 1 - last);
  return d;
}

}  // namespace las
