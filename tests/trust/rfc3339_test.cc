#include "trust/rfc3339.h"

#include <gtest/gtest.h>

namespace las::trust {
namespace {

int64_t Parse(std::string_view s) {
  Result<int64_t> r = ParseRfc3339UtcMicros(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().ToString();
  return r.ok() ? *r : -1;
}

void ExpectRejected(std::string_view s, std::string_view why) {
  Result<int64_t> r = ParseRfc3339UtcMicros(s);
  ASSERT_FALSE(r.ok()) << s;
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
}

TEST(Rfc3339, ParsesEpochAndKnownInstants) {
  EXPECT_EQ(Parse("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Parse("2000-03-01T00:00:00Z"), 951868800LL * 1000000);
  EXPECT_EQ(Parse("2024-02-29T23:59:59Z"), 1709251199LL * 1000000);
  EXPECT_EQ(Parse("1969-12-31T23:59:59Z"), -1000000);
}

TEST(Rfc3339, ParsesFractionToMicros) {
  EXPECT_EQ(Parse("1970-01-01T00:00:01.5Z"), 1500000);
  EXPECT_EQ(Parse("1970-01-01T00:00:00.000001Z"), 1);
}

TEST(Rfc3339, RejectsMoreThanSixFractionDigits) {
  ExpectRejected("1970-01-01T00:00:00.0000001Z", "more than 6 fractional digits");
}

TEST(Rfc3339, RejectsNumericOffsets) {
  ExpectRejected("2030-01-01T00:00:00+01:00", "offset must be exactly Z");
  ExpectRejected("2030-01-01T00:00:00+00:00", "offset must be exactly Z");
  ExpectRejected("2030-01-01T00:00:00-05:00", "offset must be exactly Z");
}

TEST(Rfc3339, RejectsMissingZone) { ExpectRejected("2030-01-01T00:00:00", "no time zone"); }

TEST(Rfc3339, RejectsLowercaseSeparators) {
  ExpectRejected("2030-01-01t00:00:00Z", "RFC 3339 form");
  ExpectRejected("2030-01-01T00:00:00z", "exactly Z");
}

TEST(Rfc3339, RejectsImpossibleDates) {
  ExpectRejected("2023-02-29T00:00:00Z", "no such day");
  ExpectRejected("2030-02-30T00:00:00Z", "no such day");
  ExpectRejected("2030-04-31T00:00:00Z", "no such day");
  ExpectRejected("2030-13-01T00:00:00Z", "no such month");
  ExpectRejected("2030-00-01T00:00:00Z", "no such month");
  ExpectRejected("2030-01-00T00:00:00Z", "no such day");
  ExpectRejected("1900-02-29T00:00:00Z", "no such day");
}

TEST(Rfc3339, RejectsImpossibleTimes) {
  ExpectRejected("2030-01-01T24:00:00Z", "hour");
  ExpectRejected("2030-01-01T00:60:00Z", "minute");
  ExpectRejected("2030-01-01T00:00:60Z", "leap seconds");
}

TEST(Rfc3339, RejectsOtherShapes) {
  ExpectRejected("", "RFC 3339 form");
  ExpectRejected("2030-1-01T00:00:00Z", "RFC 3339 form");
  ExpectRejected("2030-01-01 00:00:00Z", "RFC 3339 form");
  ExpectRejected("2030-01-01T00:00:00.Z", "empty fraction");
  ExpectRejected("0000-01-01T00:00:00Z", "year 0000");
}

TEST(Rfc3339, FormatIsTheInverseOfParse) {
  for (const char* s : {"1970-01-01T00:00:00Z", "2024-02-29T23:59:59.000001Z",
                        "1969-12-31T23:59:59.5Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"}) {
    Result<int64_t> micros = ParseRfc3339UtcMicros(s);
    ASSERT_TRUE(micros.ok()) << s;
    EXPECT_EQ(ParseRfc3339UtcMicros(FormatRfc3339UtcMicros(*micros)).value(), *micros) << s;
  }
  EXPECT_EQ(FormatRfc3339UtcMicros(1500000), "1970-01-01T00:00:01.500000Z");
}

}  // namespace
}  // namespace las::trust
