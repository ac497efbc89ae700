// JSON Schema's date, time and date-time formats: RFC 3339 §5.6, exactly.
//
//   date       full-date                 YYYY-MM-DD, a day that exists (leap years: every
//                                        4th, not every 100th, every 400th)
//   time       full-time                 HH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
//   date-time  full-date "T" full-time   T and Z in either case
//
// Hours 00-23, minutes 00-59, seconds 00-59, and 60 only for a leap second: when the time,
// moved to UTC by its offset, is 23:59. Offsets up to ±23:59. ASCII digits only. valijson's
// own check took any number of year digits, February 29 in every year, a '|' as an offset
// sign, and refused every non-string; these take strings only (a format applies to strings).
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

namespace las::trust {

bool IsRfc3339Date(std::string_view text);
bool IsRfc3339Time(std::string_view text);
bool IsRfc3339DateTime(std::string_view text);

}  // namespace las::trust
