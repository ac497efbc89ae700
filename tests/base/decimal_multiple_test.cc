// base/decimal_multiple.h: multipleOf decided on exact decimals.
#include "base/decimal_multiple.h"

#include <gtest/gtest.h>

#include <string>

namespace las {
namespace {

std::optional<bool> Multiple(const std::string& value, const std::string& divisor) {
  return IsDecimalMultiple(ParseJsonDecimal(value), ParseJsonDecimal(divisor));
}

TEST(DecimalMultiple, DecimalMultiplesOfFractionalDivisorsAreMultiples) {
  // Prices and quantities: a double's remainder with an absolute epsilon refused each.
  for (const char* v : {"19.99", "100", "1234.56", "0.07", "-19.99", "0", "-0.0", "99999999.99", "1e3"}) {
    EXPECT_EQ(Multiple(v, "0.01"), true) << v;
  }
  for (const char* v : {"2.3", "100", "0.3", "1e-1", "123456789.1"}) EXPECT_EQ(Multiple(v, "0.1"), true) << v;
  EXPECT_EQ(Multiple("7.5", "2.5"), true);
  EXPECT_EQ(Multiple("1.5", "0.5"), true);
}

TEST(DecimalMultiple, NearMissesAreNotMultiples) {
  EXPECT_EQ(Multiple("0.30000000000000004", "0.1"), false);
  EXPECT_EQ(Multiple("19.999", "0.01"), false);
  EXPECT_EQ(Multiple("1e-17", "1"), false);
  EXPECT_EQ(Multiple("6.5", "2"), false);
  EXPECT_EQ(Multiple("7", "2"), false);
  EXPECT_EQ(Multiple("8.75", "2.5"), false);
  EXPECT_EQ(Multiple("100000000000000000000", "3"), false);  // 10^20 mod 3 = 1
}

TEST(DecimalMultiple, AnySpellingOfTheSameValueGetsTheSameAnswer) {
  for (const char* v : {"19.99", "19.990", "1999e-2", "0.1999E2", "1.999e+1"}) {
    EXPECT_EQ(Multiple(v, "0.01"), true) << v;
    EXPECT_EQ(Multiple(v, "1e-2"), true) << v;
  }
  EXPECT_EQ(Multiple("1e20", "2"), true);
  EXPECT_EQ(Multiple("100000000000000000000", "20"), true);
}

TEST(DecimalMultiple, HugeExponentGapsAreDecidedQuickly) {
  EXPECT_EQ(Multiple("1e999999999", "7"), false);   // 10^k is never divisible by 7
  EXPECT_EQ(Multiple("1e999999999", "8"), true);    // but by 2^3
  EXPECT_EQ(Multiple("1e999999999", "1e-999999999"), true);
  EXPECT_EQ(Multiple("1e-999999999", "1"), false);
  EXPECT_EQ(Multiple("7e999999999", "7"), true);
}

TEST(DecimalMultiple, LargeDivisorsAndZeroAreNotDecided) {
  EXPECT_EQ(Multiple("1", "0"), std::nullopt);
  EXPECT_EQ(Multiple("1", "1234567890123456789"), false);  // 19 digits: decided
  EXPECT_EQ(Multiple("12345678901234567890", "1234567890123456789"), true);
  EXPECT_EQ(Multiple("123456789012345678910", "12345678901234567891"), std::nullopt);  // 20 digits
  EXPECT_EQ(Multiple("18446744073709551615", "9999999999999999999"), false);
}

// Zero, and a value smaller than the divisor, are decided whatever the divisor's length
// (probe AD3: a divisor of 1e23, read also as 99999999999999991611392, refused 0 and 1).
TEST(DecimalMultiple, ZeroAndValuesSmallerThanTheDivisorAreDecidedForAnyDivisor) {
  EXPECT_EQ(Multiple("0", "99999999999999991611392"), true);
  EXPECT_EQ(Multiple("-0.0", "12345678901234567891"), true);
  for (const char* v : {"1", "-1", "0.5", "1234567890123456789", "-12345678901234567890"}) {
    EXPECT_EQ(Multiple(v, "99999999999999991611392"), false) << v;
    EXPECT_EQ(Multiple(v, "12345678901234567891"), false) << v;
  }
  for (const char* v : {"99999999999999991611391", "9.9999999999999991611391e22"}) {
    EXPECT_EQ(Multiple(v, "99999999999999991611392"), false) << v;
  }
  EXPECT_EQ(Multiple("12345678901234567891", "12345678901234567891"), std::nullopt) << "not smaller";
  EXPECT_EQ(Multiple("1e30", "12345678901234567891"), std::nullopt);
}

}  // namespace
}  // namespace las
