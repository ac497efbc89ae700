// Integer flags: decimal digits only (no sign, no space, no exponent), at most a bound.
// CLI11 alone turns "-1" into a uint64_t's largest value and saturates a number past the
// type, so `--from -1` and `--timeout-ms -5` were silently something else.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace las::cli {

// The text of a whole number from `min` to `max`; the error names the range.
CLI::Validator WholeNumber(uint64_t min, uint64_t max);

// For int64_t fields (timeouts): 0 .. 2^63-1; `min` as given.
inline CLI::Validator WholeInt64(uint64_t min = 0) {
  return WholeNumber(min, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}
inline CLI::Validator WholeUint64(uint64_t min = 0) {
  return WholeNumber(min, std::numeric_limits<uint64_t>::max());
}

}  // namespace las::cli
