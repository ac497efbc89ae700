#include "trust/strict_json.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/json_mutation.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using namespace std::string_literals;

void ExpectRejected(const std::string& text, const std::string& message_part,
                    const StrictJsonLimits& limits = {}) {
  Status s = CheckStrictJson(text, limits);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << text;
  EXPECT_NE(s.message().find(message_part), std::string::npos)
      << "message: " << s.message() << "\nwanted: " << message_part;
}

TEST(StrictJson, AcceptsOrdinaryJson) {
  EXPECT_TRUE(CheckStrictJson(R"({"a":[1,2.5,-3,true,false,null,"x\u00e9"],"b":{}})").ok());
  EXPECT_TRUE(CheckStrictJson("  \"caf\xC3\xA9 \xF0\x9F\x98\x82\"\n").ok());
}

TEST(StrictJson, ParsedValueMatchesText) {
  Result<internal::Json> v = internal::ParseStrictJson(R"({"a":{"b":[1,{"c":"d"}]}})");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["a"]["b"][1]["c"], "d");
  EXPECT_EQ((*v)["a"]["b"][0], 1);
}

// A policy file's parse error reached `las check`, `las list --json` and the log with
// nlohmann's "last read: '...'": the token it stopped in, e.g. a secret with a raw TAB.
TEST(StrictJson, AParseErrorNeverQuotesTheInput) {
  for (const std::string& text : {"[\"tok-LIVE-5e6f\t\"]"s, "{\"tok-LIVE-5e6f\": tok}"s, "[\"tok-LIVE-5e6f"s}) {
    Result<internal::Json> parsed = internal::ParseStrictJson(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().message().find("tok-"), std::string::npos) << parsed.status().message();
    EXPECT_NE(parsed.status().message().find("invalid JSON: "), std::string::npos) << parsed.status().message();
  }
}

TEST(StrictJson, RejectsDuplicateKeyAtTopLevel) {
  ExpectRejected(R"({"a":1,"a":2})", "duplicate object key \"a\" in the object at $");
}

TEST(StrictJson, RejectsDuplicateKeyDeepInside) {
  ExpectRejected(R"({"x":[0,{"y":{"k":1,"k":1}}]})",
                 "duplicate object key \"k\" in the object at $.x[1].y");
}

TEST(StrictJson, AcceptsSameKeyInSiblingObjects) {
  EXPECT_TRUE(CheckStrictJson(R"([{"a":1},{"a":2}])").ok());
}

TEST(StrictJson, RejectsTrailingGarbage) {
  ExpectRejected(R"({"a":1} x)", "invalid JSON");
  ExpectRejected(R"({"a":1}{})", "invalid JSON");
}

TEST(StrictJson, RejectsInvalidUtf8Byte) {
  ExpectRejected("\"a\xFF\"", "not valid UTF-8 at byte offset 2");
}

TEST(StrictJson, RejectsOverlongUtf8) {
  ExpectRejected("\"\xC0\xAF\"", "not valid UTF-8");          // overlong '/'
  ExpectRejected("\"\xE0\x80\xAF\"", "not valid UTF-8");      // 3-byte overlong
  ExpectRejected("\"\xF0\x80\x80\xAF\"", "not valid UTF-8");  // 4-byte overlong
}

TEST(StrictJson, RejectsUtf8EncodedSurrogate) {
  ExpectRejected("\"\xED\xA0\x80\"", "not valid UTF-8");  // U+D800 encoded in UTF-8
}

TEST(StrictJson, RejectsCodePointAboveUnicodeRange) {
  ExpectRejected("\"\xF4\x90\x80\x80\"", "not valid UTF-8");  // U+110000
}

TEST(StrictJson, RejectsTruncatedUtf8Sequence) {
  ExpectRejected("\"\xE2\x82\"", "not valid UTF-8");
}

TEST(StrictJson, RejectsLoneSurrogateEscape) {
  ExpectRejected(R"("\ud800")", "invalid JSON");
}

TEST(StrictJson, RejectsByteOrderMark) {
  ExpectRejected("\xEF\xBB\xBF{}", "byte-order mark");
}

// nlohmann alone stops at a NUL and accepts what follows it: a signed manifest, a trust
// store or a Skarbiec result could carry anything after one.
TEST(StrictJson, RejectsARawNulAnywhere) {
  using namespace std::string_literals;
  ExpectRejected("{\"status\":\"ok\"}\0{\"token\":\"x\"}"s, "NUL byte at byte offset 15");
  ExpectRejected("{\"a\":\"b\0\"}"s, "NUL byte");
  ExpectRejected("\0"s, "NUL byte");
  EXPECT_TRUE(CheckStrictJson(R"({"a":"b\u0000c"})").ok()) << "an escaped NUL is a character";
}

TEST(StrictJson, RejectsNestingDeeperThanLimit) {
  StrictJsonLimits limits;
  limits.max_depth = 3;
  EXPECT_TRUE(CheckStrictJson("[[[1]]]", limits).ok());
  ExpectRejected("[[[[1]]]]", "nests deeper than 3 at $[0][0][0]", limits);
}

TEST(StrictJson, DefaultDepthLimitStopsDeepNesting) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  ExpectRejected(deep, "nests deeper than 64");
}

TEST(StrictJson, RejectsTextLargerThanLimit) {
  StrictJsonLimits limits;
  limits.max_bytes = 8;
  EXPECT_TRUE(CheckStrictJson("[1,2,3]", limits).ok());
  ExpectRejected("[1,2,3,4]", "more than the limit of 8", limits);
}

TEST(StrictJson, RejectsNumberOutOfDoubleRange) {
  ExpectRejected("[1e400]", "number beyond a double's range at $[0]");
  ExpectRejected("{\"n\":-" + std::string(401, '9') + "}", "number beyond a double's range at $.n");
}

TEST(StrictJson, RejectsCommentsAndSingleQuotes) {
  ExpectRejected("/*c*/{}", "invalid JSON");
  ExpectRejected("{'a':1}", "invalid JSON");
}

TEST(StrictJson, RejectsEmptyInput) { ExpectRejected("", "invalid JSON"); }

TEST(StrictJson, RejectsRawControlCharacterInString) {
  ExpectRejected("\"a\x01\"", "invalid JSON");
}

TEST(StrictJson, AcceptsEscapedNulInString) {
  Result<internal::Json> v = internal::ParseStrictJson(R"("a\u0000b")");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->get<std::string>(), "a\0b"s);
}

TEST(FindInvalidUtf8, AcceptsAllEncodingLengths) {
  EXPECT_FALSE(FindInvalidUtf8("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x82\xF4\x8F\xBF\xBF"));
}

TEST(FindInvalidUtf8, ReportsOffsetOfStrayContinuationByte) {
  EXPECT_EQ(FindInvalidUtf8("ab\x80"), 2u);
}

// Against nlohmann on 40,000 mutated texts: strict means nlohmann's grammar without
// repeated keys, beyond-double numbers, deeper nesting, a BOM or a raw NUL.
TEST(StrictJson, AcceptsExactlyNlohmannsGrammarWithoutRepeatedKeysOnMutatedText) {
  const std::vector<std::string> corpus = {
      R"({"schema_version":1,"surfaces":[{"name":"weles","argv":["/usr/bin/python3","-u"],"sha256":"ab"}]})",
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":-1.5e3,"enum":[1,2]}},"required":["n"]})",
      "{\"k\\u00e9\\ud83d\\ude00\":\"\xe6\x97\xa5\xf0\x9f\x98\x80\",\"e\":[{},[],null,true,false,0.25]}",
  };
  StrictJsonLimits limits;
  limits.max_depth = 8;
  std::mt19937_64 rng(9);
  size_t accepted = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string text = testing::MutateJsonText(corpus[round % corpus.size()], rng);
    const bool ours = CheckStrictJson(text, limits).ok();
    const testing::JsonReference reference = testing::NlohmannVerdict(text);
    const bool expected = reference == testing::JsonReference::kValid && !testing::HasRepeatedKey(text) &&
                          testing::JsonDepth(text) <= limits.max_depth;
    ASSERT_EQ(ours, expected) << text;
    accepted += ours;
  }
  EXPECT_GT(accepted, 4000u);
  EXPECT_LT(accepted, 36000u);
}

}  // namespace
}  // namespace las::trust
