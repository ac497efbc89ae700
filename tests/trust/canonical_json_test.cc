#include "trust/canonical_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/json_mutation.h"
#include "trust/strict_json.h"

namespace las::trust {
namespace {

std::string Num(double v) {
  Result<std::string> r = FormatJcsNumber(v);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : "";
}

std::string Canon(const std::string& text) {
  Result<std::string> r = CanonicalizeJson(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : "";
}

TEST(JcsNumber, ZeroAndNegativeZeroPrintAsZero) {
  EXPECT_EQ(Num(0.0), "0");
  EXPECT_EQ(Num(-0.0), "0");
  EXPECT_EQ(Canon("[-0, -0.0, 0e5]"), "[0,0,0]");
}

TEST(JcsNumber, SwitchesToExponentAt1e21) {
  EXPECT_EQ(Num(1e20), "100000000000000000000");
  EXPECT_EQ(Num(1e21), "1e+21");
  EXPECT_EQ(Num(123456789e13), "1.23456789e+21");
}

TEST(JcsNumber, SwitchesToExponentBelow1e6) {
  EXPECT_EQ(Num(1e-6), "0.000001");
  EXPECT_EQ(Num(1e-7), "1e-7");
  EXPECT_EQ(Num(1.5e-7), "1.5e-7");
  EXPECT_EQ(Num(0.000123), "0.000123");
}

TEST(JcsNumber, SmallestAndLargestDoubles) {
  EXPECT_EQ(Num(5e-324), "5e-324");
  EXPECT_EQ(Num(-5e-324), "-5e-324");
  EXPECT_EQ(Num(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(Num(2.2250738585072014e-308), "2.2250738585072014e-308");
}

TEST(JcsNumber, IntegersAroundTwoToThe53) {
  EXPECT_EQ(Num(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(Canon("[9007199254740993]"), "[9007199254740992]");  // rounds as in JS
  EXPECT_EQ(Canon("[9007199254740994]"), "[9007199254740994]");
  EXPECT_EQ(Canon("[-9007199254740991]"), "[-9007199254740991]");
}

TEST(JcsNumber, LargeIntegersPrintAsJavaScriptDoes) {
  EXPECT_EQ(Canon("[18446744073709551615]"), "[18446744073709552000]");
  EXPECT_EQ(Canon("[123456789012345678901234567890]"), "[1.2345678901234568e+29]");
  EXPECT_EQ(Canon("[-9223372036854775808]"), "[-9223372036854776000]");
}

TEST(JcsNumber, FractionsUseShortestRoundTripDigits) {
  EXPECT_EQ(Num(0.1), "0.1");
  EXPECT_EQ(Num(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Num(333333333.33333329), "333333333.3333333");
  EXPECT_EQ(Num(4.5), "4.5");
  EXPECT_EQ(Num(-1.0), "-1");
  EXPECT_EQ(Num(1e30), "1e+30");
}

TEST(JcsNumber, CyberphoneSampleLines) {
  // From the README of the shared JCS vectors (hex IEEE bits -> expected text).
  auto from_bits = [](uint64_t bits) {
    double d;
    static_assert(sizeof d == sizeof bits);
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  EXPECT_EQ(Num(from_bits(0x4340000000000001)), "9007199254740994");
  EXPECT_EQ(Num(from_bits(0x4340000000000002)), "9007199254740996");
  EXPECT_EQ(Num(from_bits(0x444b1ae4d6e2ef50)), "1e+21");
  EXPECT_EQ(Num(from_bits(0x3eb0c6f7a0b5ed8d)), "0.000001");
  EXPECT_EQ(Num(from_bits(0x3eb0c6f7a0b5ed8c)), "9.999999999999997e-7");
  EXPECT_EQ(Num(from_bits(0x8000000000000000)), "0");
}

TEST(JcsNumber, RejectsNonFinite) {
  EXPECT_FALSE(FormatJcsNumber(std::numeric_limits<double>::infinity()).ok());
  EXPECT_FALSE(FormatJcsNumber(std::nan("")).ok());
}

TEST(CanonicalJson, SortsKeysByUtf16CodeUnitsNotUtf8Bytes) {
  // U+FB33 (UTF-8 EF AC B3) sorts before U+1F602 (UTF-8 F0 9F 98 82) in UTF-8 byte order,
  // but after it in UTF-16 (0xFB33 > 0xD83D).
  EXPECT_EQ(Canon("{\"\xEF\xAC\xB3\":1,\"\xF0\x9F\x98\x82\":2}"),
            "{\"\xF0\x9F\x98\x82\":2,\"\xEF\xAC\xB3\":1}");
}

TEST(CanonicalJson, RemovesWhitespaceAndSortsNestedObjects) {
  EXPECT_EQ(Canon(" { \"b\" : [ 1 , { \"z\":1, \"a\":2 } ], \"a\" : { } } "),
            R"({"a":{},"b":[1,{"a":2,"z":1}]})");
}

TEST(CanonicalJson, EscapesStringsLikeJsonStringify) {
  EXPECT_EQ(Canon(R"(["\u0008\u0009\u000a\u000c\u000d\u0001\u001f\"\\\/\u007f\u20ac"])"),
            "[\"\\b\\t\\n\\f\\r\\u0001\\u001f\\\"\\\\/\x7f\xE2\x82\xAC\"]");
}

TEST(CanonicalJson, KeepsEscapedNul) {
  EXPECT_EQ(Canon(R"(["a\u0000"])"), R"(["a\u0000"])");
}

TEST(CanonicalJson, RejectsDuplicateKeys) {
  EXPECT_EQ(CanonicalizeJson(R"({"a":1,"a":1})").status().code(), Code::kInvalidArgument);
}

TEST(CanonicalJson, RejectsInvalidJson) {
  EXPECT_EQ(CanonicalizeJson("{").status().code(), Code::kInvalidArgument);
}

// Every number as the double it is in JCS, so trees compare as JCS sees them.
nlohmann::json AsDoubles(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_structured()) return v;
  nlohmann::json out = v.is_object() ? nlohmann::json::object() : nlohmann::json::array();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (v.is_object()) {
      out[it.key()] = AsDoubles(it.value());
    } else {
      out.push_back(AsDoubles(it.value()));
    }
  }
  return out;
}

// On 40,000 mutated texts: every strict one (about 2,000) canonicalizes; the form is a
// fixed point, holds the same value, and does not depend on how the text was written
// (nlohmann's indented re-serialization, with its own key order and number spelling,
// gives the same bytes).
TEST(CanonicalJson, MutatedStrictTextsCanonicalizeToOneFixedForm) {
  const std::vector<std::string> corpus = {
      R"({"b":[1,2.50,-0,1E21,1e-7,123456789012345678901234567890],"a":{"\u00e9":"\ud83d\ude00","\u0001":"\t"}})",
      "{\"\xef\xbd\xa1\":1,\"\xf0\x9f\x98\x80\":2,\"z\":[{\"y\":null,\"x\":true}],\"\":false}",
  };
  std::mt19937_64 rng(11);
  size_t checked = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string text = testing::MutateJsonText(corpus[round % corpus.size()], rng);
    if (!CheckStrictJson(text).ok()) continue;
    const Result<std::string> canonical = CanonicalizeJson(text);
    ASSERT_TRUE(canonical.ok()) << text << ": " << canonical.status().ToString();
    const Result<std::string> again = CanonicalizeJson(*canonical);
    ASSERT_TRUE(again.ok()) << *canonical;
    EXPECT_EQ(*again, *canonical) << text;
    const nlohmann::json value = nlohmann::json::parse(text);
    EXPECT_EQ(AsDoubles(nlohmann::json::parse(*canonical)), AsDoubles(value)) << text;
    const Result<std::string> rewritten = CanonicalizeJson(value.dump(2));
    ASSERT_TRUE(rewritten.ok()) << value.dump(2);
    EXPECT_EQ(*rewritten, *canonical) << text;
    ++checked;
  }
  EXPECT_GT(checked, 1500u);
}

}  // namespace
}  // namespace las::trust
