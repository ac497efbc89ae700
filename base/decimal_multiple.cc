#include "base/decimal_multiple.h"

#include <cstdint>

namespace las {

namespace {

__extension__ typedef unsigned __int128 Wide;  // a product of two 64-bit residues

uint64_t MulMod(uint64_t a, uint64_t b, uint64_t m) { return static_cast<uint64_t>(Wide{a} * b % m); }

// 10^k mod m by squaring: the exponent gap can be up to 2·10^9 (json_decimal.h caps each).
uint64_t PowTenMod(unsigned long long k, uint64_t m) {
  uint64_t result = 1 % m;
  uint64_t base = 10 % m;
  while (k > 0) {
    if (k & 1) result = MulMod(result, base, m);
    base = MulMod(base, base, m);
    k >>= 1;
  }
  return result;
}

// Whether |a| < |b|, both nonzero: a = 0.digits × 10^(size + exponent).
bool SmallerMagnitude(const JsonDecimal& a, const JsonDecimal& b) {
  const long long a_order = static_cast<long long>(a.digits.size()) + a.exponent;
  const long long b_order = static_cast<long long>(b.digits.size()) + b.exponent;
  if (a_order != b_order) return a_order < b_order;
  return a.digits < b.digits;  // neither has trailing zeros: "12" < "123" as 0.12 < 0.123
}

}  // namespace

std::optional<bool> IsDecimalMultiple(const JsonDecimal& value, const JsonDecimal& divisor) {
  if (divisor.digits.empty()) return std::nullopt;
  if (value.digits.empty()) return true;  // zero is every number's multiple
  // A nonzero value smaller than the divisor is no multiple of it, however long the
  // divisor (probe AD3: a divisor of 1e23 refused 0 and 1 as not checked).
  if (SmallerMagnitude(value, divisor)) return false;
  // 10^19 - 1 < 2^64: any 19 digits fit.
  if (divisor.digits.size() > 19) return std::nullopt;
  uint64_t b = 0;
  for (const char c : divisor.digits) b = b * 10 + static_cast<uint64_t>(c - '0');
  // value = a·10^p, divisor = b·10^q, with a and b free of trailing zeros. If p < q the
  // quotient is (a / b) / 10^(q-p), an integer only if 10 divides a: it does not.
  if (value.exponent < divisor.exponent) return false;
  uint64_t a_mod_b = 0;
  for (const char c : value.digits) {
    a_mod_b = static_cast<uint64_t>((Wide{a_mod_b} * 10 + static_cast<uint64_t>(c - '0')) % b);
  }
  const auto gap = static_cast<unsigned long long>(value.exponent - divisor.exponent);
  return MulMod(a_mod_b, PowTenMod(gap, b), b) == 0;
}

}  // namespace las
