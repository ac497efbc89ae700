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

}  // namespace

std::optional<bool> IsDecimalMultiple(const JsonDecimal& value, const JsonDecimal& divisor) {
  // 10^19 - 1 < 2^64: any 19 digits fit.
  if (divisor.digits.empty() || divisor.digits.size() > 19) return std::nullopt;
  if (value.digits.empty()) return true;  // zero is every number's multiple
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
