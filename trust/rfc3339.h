// RFC 3339 timestamps in the one spelling Las accepts for signed expiries:
//
//   YYYY-MM-DDTHH:MM:SS[.F]Z     F = 1 to 6 digits; 'T' and 'Z' uppercase
//
// Only "Z" is accepted as the offset: an expiry is an absolute instant, and one spelling
// per instant means the signed text and the enforced instant cannot drift apart. Dates
// must exist (no February 30, no month 13), hours 00-23, minutes and seconds 00-59 (a
// leap second 60 has no epoch-microsecond value and is refused), years 0001-9999.
//
// Thread safety: free functions with no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace las::trust {

// Microseconds since the Unix epoch (negative before 1970). InvalidArgument naming the
// offending part otherwise.
Result<int64_t> ParseRfc3339UtcMicros(std::string_view text);

// The inverse: "2026-03-01T12:00:00Z", with ".ffffff" only if micros are non-zero.
// Outside years 0001-9999 (never a parsed value) it prints "<micros>us since the epoch".
std::string FormatRfc3339UtcMicros(int64_t micros);

}  // namespace las::trust
