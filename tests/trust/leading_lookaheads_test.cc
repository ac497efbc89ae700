// SplitLeadingLookaheads (trust/leading_lookaheads.h), and patterns that start with
// look-aheads checked through an argument schema against std::regex, which implements
// ECMAScript look-ahead itself.
#include "trust/leading_lookaheads.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "trust/argument_schema.h"

namespace las::trust {
namespace {

TEST(LeadingLookaheads, LookaheadsAtTheAnchoredStartAreSplit) {
  // pydantic's Decimal (probe GS2).
  auto decimal = SplitLeadingLookaheads(R"(^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$)");
  ASSERT_TRUE(decimal.has_value());
  ASSERT_EQ(decimal->conditions.size(), 1u);
  EXPECT_FALSE(decimal->conditions[0].must_match);
  EXPECT_EQ(decimal->conditions[0].pattern, R"(^(?:^[-+.]*$))");
  EXPECT_EQ(decimal->rest, R"(^[+-]?0*\d*\.?\d*$)");

  // What follows the look-aheads, its trailing items that can match nothing trimmed.
  const std::vector<std::pair<std::string, std::string>> trimmed = {
      // pydantic's constrained Decimal (probe HE4): what follows the look-ahead ends in
      // items that can match nothing, so a search finds a match where `^` alone does.
      {R"(^(?!^[-+.]*$)[+-]?0*(?:\d{0,3}|(?=[\d.]{1,6}0*$)\d{0,3}\.\d{0,2}0*$))", "^"},
      // An item that must match something stops the trimming.
      {R"(^(?!a)[+-]?x(?:\d{0,3}|(?=y)z)\w*)", R"(^[+-]?x)"},
      // A surrogate pair written as two escapes is one item (probe HH4).
      {R"(^(?=x)x\uD83D\uDE00?)", "^x"},
      {R"(^(?=x)x\uD83D)", R"(^x\uD83D)"},
  };
  for (const auto& [pattern, rest] : trimmed) {
    auto split = SplitLeadingLookaheads(pattern);
    ASSERT_TRUE(split.has_value()) << pattern;
    EXPECT_EQ(split->rest, rest) << pattern;
  }

  auto two = SplitLeadingLookaheads(R"(^(?=.*\d)(?![)(]|x\))(a|b)+$)");
  ASSERT_TRUE(two.has_value());
  ASSERT_EQ(two->conditions.size(), 2u);
  EXPECT_TRUE(two->conditions[0].must_match);
  EXPECT_EQ(two->conditions[0].pattern, R"(^(?:.*\d))");
  EXPECT_EQ(two->conditions[1].pattern, R"(^(?:[)(]|x\)))");
  EXPECT_EQ(two->rest, "^(a|b)+$");
}

TEST(LeadingLookaheads, OtherPatternsAreNotSplit) {
  for (const char* pattern : {
           "^[a-z]+$",         // none
           "(?!a)b",           // not anchored: tested at every position
           "a^(?!b)",          // not at the start
           "^(?!a)b|c",        // the look-ahead applies to one alternative
           "^(?!a",            // not closed
           "^(?!a)b(",         // what follows is not closed
           "^(?!a)b)",         // nor balanced
           "^x(?!a)b",         // after another atom
       }) {
    EXPECT_FALSE(SplitLeadingLookaheads(pattern).has_value()) << pattern;
  }
  // A `|` inside a group or a class of what follows is no alternative of the whole.
  EXPECT_TRUE(SplitLeadingLookaheads("^(?!a)(b|c)[|]$").has_value());
}

// Every string of up to four characters over an alphabet that exercises the patterns,
// against std::regex's ECMAScript search, which has look-ahead of its own.
TEST(LeadingLookaheads, SplitPatternsMatchAsECMAScriptDoes) {
  const std::string alphabet = "-+.10a9";
  std::vector<std::string> subjects = {""};
  for (size_t length = 1, from = 0; length <= 4; ++length) {
    const size_t to = subjects.size();
    for (size_t i = from; i < to; ++i) {
      for (const char c : alphabet) subjects.push_back(subjects[i] + c);
    }
    from = to;
  }
  for (const std::string pattern : {
           R"(^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$)",
           R"(^(?=.*1)(?!.*\.\.)[-+.10a]{2,}$)",
           R"(^(?!a)(?=[^+]))",
           // pydantic's condecimal(max_digits=2, decimal_places=1) and max_digits=3 alone.
           R"(^(?!^[-+.]*$)[+-]?0*(?:\d{0,1}|(?=[\d.]{1,3}0*$)\d{0,1}\.\d{0,1}0*$))",
           R"(^(?!^[-+.]*$)[+-]?0*(?:\d{0,3}|(?=[\d.]{1,4}0*$)\d*\.\d*0*$))",
           // Trimming stops at an item that must match; a class, a group and an escape
           // with quantifiers that allow nothing are trimmed.
           R"(^(?!1)[a+](?:9|(?=.)0)?[.-]{0,2}(?:(?:a)*|1)\d*)",
       }) {
    ASSERT_TRUE(SplitLeadingLookaheads(pattern).has_value()) << pattern;
    Result<ArgumentSchema> schema =
        CompileArgumentSchema(nlohmann::json{{"type", "object"}, {"properties", {{"s", {{"pattern", pattern}}}}}}.dump());
    ASSERT_TRUE(schema.ok()) << pattern << ": " << schema.status().ToString();
    const std::regex ecmascript(pattern);
    size_t matched = 0;
    for (const std::string& subject : subjects) {
      const bool expected = std::regex_search(subject, ecmascript);
      matched += expected;
      const Verdict verdict = ValidateArguments(*schema, nlohmann::json{{"s", subject}}.dump());
      EXPECT_EQ(verdict.ok(), expected) << pattern << " on \"" << subject << "\": " << verdict.ToString();
    }
    EXPECT_GT(matched, 0u) << pattern;
    EXPECT_LT(matched, subjects.size()) << pattern;
  }
}

// A look-ahead anywhere else is still refused, and so is one in a patternProperties key
// (matched as one RE2 set with the node's other keys).
TEST(LeadingLookaheads, OtherLookaheadsStillFailCompile) {
  for (const char* schema : {
           R"js({"properties":{"s":{"pattern":"^a(?!b)"}}})js",
           R"js({"properties":{"s":{"pattern":"^(?!a)b|c"}}})js",
           R"js({"patternProperties":{"^(?!x)":{"type":"string"}}})js",
           R"js({"properties":{"s":{"pattern":"^(?!a)"}},"patternProperties":{"^(?!a)":{}}})js",
       }) {
    Result<ArgumentSchema> compiled = CompileArgumentSchema(schema);
    ASSERT_FALSE(compiled.ok()) << schema;
    EXPECT_EQ(compiled.status().code(), Code::kUnsupported) << compiled.status().ToString();
  }
}

}  // namespace
}  // namespace las::trust
