#include "trust/rfc3339.h"

#include <cstdio>

namespace las::trust {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

// Reads exactly `width` ASCII digits at `pos`.
bool ReadDigits(std::string_view s, size_t pos, size_t width, int64_t& out) {
  if (pos + width > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

Result<int64_t> ParseRfc3339UtcMicros(std::string_view s) {
  const std::string quoted = "\"" + std::string(s.substr(0, 64)) + "\"";
  auto bad = [&](const char* why) {
    return InvalidArgument("timestamp " + quoted + " " + why +
                           " (expected YYYY-MM-DDTHH:MM:SS[.ffffff]Z)");
  };
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' ||
      !ReadDigits(s, 5, 2, month) || s[7] != '-' || !ReadDigits(s, 8, 2, day) ||
      s[10] != 'T' || !ReadDigits(s, 11, 2, hour) || s[13] != ':' ||
      !ReadDigits(s, 14, 2, minute) || s[16] != ':' || !ReadDigits(s, 17, 2, second)) {
    return bad("is not in RFC 3339 form");
  }
  size_t pos = 19;
  int64_t fraction_micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (++digits > 6) return bad("has more than 6 fractional digits");
      fraction_micros = fraction_micros * 10 + (s[pos] - '0');
      ++pos;
    }
    if (digits == 0) return bad("has an empty fraction");
    for (size_t k = digits; k < 6; ++k) fraction_micros *= 10;
  }
  if (pos >= s.size()) return bad("has no time zone");
  if (s.substr(pos) != "Z") return bad("is not UTC: the offset must be exactly Z");
  if (year < 1) return bad("has year 0000");
  if (month < 1 || month > 12) return bad("has no such month");
  if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) return bad("has no such day");
  if (hour > 23) return bad("has an hour above 23");
  if (minute > 59) return bad("has a minute above 59");
  if (second > 59) return bad("has a second above 59 (leap seconds are not accepted)");
  const int64_t seconds =
      DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second;
  return seconds * kMicrosPerSecond + fraction_micros;
}

std::string FormatRfc3339UtcMicros(int64_t micros) {
  int64_t seconds = micros / kMicrosPerSecond;
  int64_t fraction = micros % kMicrosPerSecond;
  if (fraction < 0) {
    fraction += kMicrosPerSecond;
    --seconds;
  }
  int64_t days = seconds / kSecondsPerDay;
  int64_t rest = seconds % kSecondsPerDay;
  if (rest < 0) {
    rest += kSecondsPerDay;
    --days;
  }
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  if (y < 1 || y > 9999) return std::to_string(micros) + "us since the epoch";
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld",
                        static_cast<long long>(y), static_cast<long long>(m),
                        static_cast<long long>(d), static_cast<long long>(rest / 3600),
                        static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (fraction != 0) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(fraction));
    out += buf;
  }
  out += 'Z';
  return out;
}

}  // namespace las::trust
