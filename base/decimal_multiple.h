// Whether one exact decimal is an integer multiple of another: JSON Schema's `multipleOf`
// ("instance / divisor is an integer") decided on decimals (base/json_decimal.h), with no
// double and no tolerance, so 19.99 is a multiple of 0.01 and 0.30000000000000004 is not
// one of 0.1.
//
// Cost: linear in the value's digits, logarithmic in the exponent gap (10^k mod b by
// squaring), whatever the spelling ("1e999999999" costs as much as "1"). The divisor's
// digits must fit one 64-bit word (at most 19 significant digits, every double's shortest
// form and every 64-bit integer has fewer or as many); a longer divisor is not decided.
//
// Thread safety: a pure function.
#pragma once

#include <optional>

#include "base/json_decimal.h"

namespace las {

// true / false as above; nullopt when the divisor is zero (no multiple is defined), or has
// more than 19 significant digits and the value is not zero nor smaller than it. Signs do
// not matter.
std::optional<bool> IsDecimalMultiple(const JsonDecimal& value, const JsonDecimal& divisor);

}  // namespace las
