#include "trust/date_time_format.h"

#include <optional>

namespace las::trust {
namespace {

// `count` ASCII digits at text[at...], as a number.
std::optional<int> Digits(std::string_view text, size_t at, size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysIn(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// full-time, the whole of `text`.
bool IsFullTime(std::string_view text) {
  const auto hour = Digits(text, 0, 2);
  const auto minute = Digits(text, 3, 2);
  const auto second = Digits(text, 6, 2);
  if (!hour || !minute || !second || text[2] != ':' || text[5] != ':') return false;
  if (*hour > 23 || *minute > 59 || *second > 60) return false;
  size_t at = 8;
  if (at < text.size() && text[at] == '.') {
    const size_t digits_from = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == digits_from) return false;
  }
  if (at >= text.size()) return false;  // the offset is required
  int offset_minutes = 0;
  if (text[at] == 'Z' || text[at] == 'z') {
    if (at + 1 != text.size()) return false;
  } else if (text[at] == '+' || text[at] == '-') {
    const auto offset_hour = Digits(text, at + 1, 2);
    const auto offset_minute = Digits(text, at + 4, 2);
    if (!offset_hour || !offset_minute || text[at + 3] != ':' || at + 6 != text.size()) return false;
    if (*offset_hour > 23 || *offset_minute > 59) return false;
    offset_minutes = (text[at] == '+' ? 1 : -1) * (*offset_hour * 60 + *offset_minute);
  } else {
    return false;
  }
  if (*second == 60) {  // a leap second happens at 23:59:60 UTC
    const int utc = ((*hour * 60 + *minute - offset_minutes) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59) return false;
  }
  return true;
}

}  // namespace

bool IsRfc3339Date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  const auto year = Digits(text, 0, 4);
  const auto month = Digits(text, 5, 2);
  const auto day = Digits(text, 8, 2);
  return year && month && day && *month >= 1 && *month <= 12 && *day >= 1 && *day <= DaysIn(*year, *month);
}

bool IsRfc3339Time(std::string_view text) { return IsFullTime(text); }

bool IsRfc3339DateTime(std::string_view text) {
  return text.size() > 11 && (text[10] == 'T' || text[10] == 't') && IsRfc3339Date(text.substr(0, 10)) &&
         IsFullTime(text.substr(11));
}

}  // namespace las::trust
