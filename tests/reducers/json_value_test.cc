// reducers/json_value.h: exact numbers, one canonical text, strict refusals.
#include "reducers/json_value.h"

#include <gtest/gtest.h>

namespace las::reducers {
namespace {

std::string Canon(std::string_view text) {
  auto out = CanonicalizeJsonValue(text);
  EXPECT_TRUE(out.ok()) << text << ": " << out.status().ToString();
  return out.ok() ? *out : "";
}

std::string Refusal(std::string_view text) {
  auto out = ParseJsonValue(text);
  EXPECT_FALSE(out.ok()) << text;
  return out.ok() ? "" : out.status().message();
}

TEST(JsonValueTest, IntegersOfAnySizeAreKeptDigitForDigit) {
  EXPECT_EQ(Canon("123456789012345678901234567890"), "123456789012345678901234567890");
  EXPECT_EQ(Canon("-98765432109876543210987654321"), "-98765432109876543210987654321");
  EXPECT_EQ(Canon("9007199254740993"), "9007199254740993") << "2^53 + 1, not rounded";
  EXPECT_EQ(Canon("-0"), "0");
}

TEST(JsonValueTest, OtherNumbersAreShortestRoundTripDoubles) {
  EXPECT_EQ(Canon("1.50"), "1.5");
  EXPECT_EQ(Canon("15e-1"), "1.5");
  EXPECT_EQ(Canon("1e3"), "1000");
  EXPECT_EQ(Canon("-0.0"), "0");
  EXPECT_EQ(Canon("1e-400"), "0") << "underflow is zero";
  // Tiny or huge by the place of the first digit, not the exponent's sign (probe DF1).
  EXPECT_EQ(Canon("0." + std::string(330, '0') + "1"), "0");
  EXPECT_EQ(Canon("-0." + std::string(330, '0') + "1e2"), "0");
  EXPECT_EQ(Canon("0." + std::string(400, '0') + "1e400"), "0.1");
  EXPECT_EQ(Canon("1" + std::string(400, '0') + "e-400"), "1");
  const std::string once = Canon("6.02214076e23");
  EXPECT_EQ(Canon(once), once) << "canonical text is a fixpoint";
}

// Below 2^53 an integral double is the integer it equals, digit for digit, whatever its
// shortest form (1e+15): equal numbers have one text (probe BX1). Beyond, a double keeps
// its shortest form.
TEST(JsonValueTest, AnIntegralDoubleBelowTwoToThe53IsWrittenAsItsInteger) {
  EXPECT_EQ(Canon("1e15"), "1000000000000000");
  EXPECT_EQ(Canon("-1e15"), "-1000000000000000");
  EXPECT_EQ(Canon("1e15"), Canon("1000000000000000"));
  EXPECT_EQ(Canon("9007199254740991.0"), "9007199254740991") << "2^53 - 1";
  EXPECT_EQ(Canon("1.5e3"), "1500");
  EXPECT_EQ(Canon("9007199254740992.0"), "9007199254740992") << "2^53: its shortest form";
  EXPECT_EQ(Canon("1e21"), "1e+21");
  EXPECT_EQ(Canon("1e15"), Canon(Canon("1e15"))) << "still a fixpoint";
}

TEST(JsonValueTest, CanonicalTextSortsKeysAndDropsWhitespace) {
  EXPECT_EQ(Canon(" { \"b\" : [ 1 , true , null ] , \"a\" : { \"z\":\"\\u00e9\\n\" , \"y\":{} } } "),
            "{\"a\":{\"y\":{},\"z\":\"\xC3\xA9\\n\"},\"b\":[1,true,null]}");
  EXPECT_EQ(Canon(R"("\ud83d\ude00")"), "\"\xF0\x9F\x98\x80\"") << "a surrogate pair";
  EXPECT_EQ(Canon(R"("\/")"), R"("/")");
}

TEST(JsonValueTest, EqualValuesHaveEqualText) {
  auto a = ParseJsonValue(R"({"x":[1,2.0],"y":"s"})");
  auto b = ParseJsonValue(R"({"y":"s","x":[1,2]})");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a == *b);
  EXPECT_EQ(CanonicalText(*a), CanonicalText(*b));
}

TEST(JsonValueTest, AnythingElseIsRefusedWithAClearError) {
  EXPECT_NE(Refusal("NaN").find("NaN"), std::string::npos);
  EXPECT_NE(Refusal("-Infinity").find("Infinity"), std::string::npos);
  EXPECT_NE(Refusal("Infinity").find("Infinity"), std::string::npos);
  EXPECT_NE(Refusal("1e400").find("range"), std::string::npos);
  EXPECT_NE(Refusal("1" + std::string(400, '0') + "e-5").find("range"), std::string::npos);
  EXPECT_NE(Refusal("-1" + std::string(400, '0') + ".5e-5").find("range"), std::string::npos);
  EXPECT_NE(Refusal("0.00" + std::string(400, '1') + "e400").find("range"), std::string::npos);
  EXPECT_NE(Refusal(R"({"a":1,"a":2})").find("duplicate"), std::string::npos);
  EXPECT_NE(Refusal("\"\xC0\xAF\"").find("UTF-8"), std::string::npos) << "overlong";
  EXPECT_NE(Refusal("\"\xED\xA0\x80\"").find("UTF-8"), std::string::npos) << "encoded surrogate";
  EXPECT_NE(Refusal("\"\xFF\"").find("UTF-8"), std::string::npos);
  EXPECT_NE(Refusal(R"("\ud800")").find("surrogate"), std::string::npos);
  EXPECT_NE(Refusal(R"("\udc00x")").find("surrogate"), std::string::npos);
  EXPECT_NE(Refusal("\xEF\xBB\xBF{}").find("byte-order"), std::string::npos);
  EXPECT_NE(Refusal("[1] 2").find("after"), std::string::npos);
  EXPECT_NE(Refusal("\"a\nb\"").find("control"), std::string::npos);
  for (std::string_view bad : {"", "[1,]", "{'a':1}", "01", "1.", ".5", "+1", "[1", "{\"a\"}",
                               "undefined", "tru", "/* c */ 1", "\"\\x\""}) {
    Refusal(bad);
  }
}

// A large value is mostly leaves; a leaf carries no container (docs/PERFORMANCE.md).
TEST(JsonValueTest, ALeafIsSmallAndACopyIsDeep) {
  EXPECT_LE(sizeof(JsonValue), 48u);
  auto parsed = ParseJsonValue(R"({"a":[1,{"b":"x"}],"c":{}})");
  ASSERT_TRUE(parsed.ok());
  JsonValue copy = *parsed;
  EXPECT_EQ(copy, *parsed);
  copy.object()["a"].array()[1].object()["b"] = JsonValue::String("y");
  copy.object()["c"].object()["d"] = JsonValue();
  EXPECT_EQ(CanonicalText(*parsed), R"({"a":[1,{"b":"x"}],"c":{}})") << "the original is untouched";
  EXPECT_EQ(CanonicalText(copy), R"({"a":[1,{"b":"y"}],"c":{"d":null}})");
  copy = *parsed;  // assignment is deep, too
  EXPECT_EQ(copy, *parsed);
  const JsonValue leaf = JsonValue::String("s");
  EXPECT_TRUE(leaf.array().empty());
  EXPECT_TRUE(leaf.object().empty());
  EXPECT_EQ(leaf.Find("a"), nullptr);
}

TEST(JsonValueTest, BoundsOnSizeAndDepth) {
  JsonLimits limits;
  limits.max_depth = 2;
  EXPECT_TRUE(ParseJsonValue("[[1]]", limits).ok());
  EXPECT_FALSE(ParseJsonValue("[[[1]]]", limits).ok());
  limits.max_bytes = 4;
  EXPECT_FALSE(ParseJsonValue("12345", limits).ok());
}

TEST(JsonValueTest, NumbersCompareExactlyAsIntegersAndAsDoublesOtherwise) {
  auto n = [](std::string_view t) { return *ParseJsonValue(t); };
  EXPECT_LT(CompareNumbers(n("9007199254740992"), n("9007199254740993")), 0);
  EXPECT_GT(CompareNumbers(n("-1"), n("-100000000000000000000000")), 0);
  EXPECT_EQ(CompareNumbers(n("100000000000000000000000"), n("100000000000000000000000")), 0);
  EXPECT_LT(CompareNumbers(n("1"), n("1.5")), 0);
  EXPECT_GT(CompareNumbers(n("1e300"), n("99999999999999999999")), 0);
}

// An integer against a double, exactly: as doubles, 10^21 + 1 and 1e21 were equal and `max`
// kept the smaller (found by the grants probe).
TEST(JsonValueTest, AnIntegerAndADoubleCompareExactly) {
  auto n = [](std::string_view t) { return *ParseJsonValue(t); };
  const struct {
    const char* a;
    const char* b;
    int order;
  } cases[] = {
      {"1e21", "1000000000000000000001", -1},
      {"999999999999999999999", "1e21", -1},
      {"-1e21", "-999999999999999999999", -1},
      {"1000000000000000000000", "1e21", 0},
      {"9.007199254740992e15", "9007199254740993", -1},
      {"1.5", "1", 1},
      {"-1.5", "-1", -1},
      {"-1.5", "-2", 1},
      {"0.0", "0", 0},
      {"-0.0", "0", 0},
      {"0.5", "0", 1},
      {"-0.5", "0", -1},
      {"1e300", "-1", 1},
  };
  for (const auto& c : cases) {
    const int forward = CompareNumbers(n(c.a), n(c.b));
    const int backward = CompareNumbers(n(c.b), n(c.a));
    EXPECT_EQ((forward > 0) - (forward < 0), c.order) << c.a << " vs " << c.b;
    EXPECT_EQ((backward > 0) - (backward < 0), -c.order) << c.b << " vs " << c.a;
  }
}

}  // namespace
}  // namespace las::reducers
