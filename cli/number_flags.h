// Integer flags: decimal digits only (no sign, no space, no exponent), at most a bound.
// CLI11 alone turns "-1" into a uint64_t's largest value and saturates a number past the
// type, so `--from -1` and `--timeout-ms -5` were silently something else.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace las::cli {

// The text of a whole number from `min` to `max`; the error names the range. Add it with
// ->transform(), not ->check(): it rewrites the text without leading zeros, which CLI11's
// conversion would otherwise read as octal ("010" is 8, "08" an error).
CLI::Validator WholeNumber(uint64_t min, uint64_t max);

// Milliseconds of a timeout: `min` .. a year. A timer counts in nanoseconds, so a larger
// value (up to 2^63-1 ms would fit the field) overflowed it and fired at once.
inline constexpr uint64_t kMaxTimeoutMs = 365ull * 24 * 60 * 60 * 1000;
inline CLI::Validator TimeoutMs(uint64_t min = 0) { return WholeNumber(min, kMaxTimeoutMs); }
inline CLI::Validator WholeUint64(uint64_t min = 0) {
  return WholeNumber(min, std::numeric_limits<uint64_t>::max());
}

}  // namespace las::cli
