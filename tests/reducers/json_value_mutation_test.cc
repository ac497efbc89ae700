// reducers/json_value.h parses every state value and message body by hand. Here it is
// compared with nlohmann's parser on randomly mutated texts: it accepts exactly the texts
// nlohmann accepts that have no repeated key in any object and no number beyond a double,
// and what it keeps is what nlohmann read (strings byte for byte, members, integers exactly
// where nlohmann holds them exactly, other numbers as the same double).
#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reducers/json_value.h"
#include "tests/support/json_mutation.h"

namespace las::reducers {
namespace {

using Json = nlohmann::json;
using testing::JsonReference;

constexpr size_t kMaxDepth = 16;

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      R"({"by":"agent-1","n":[1,-0,1.50,15e-1,1E3,-2.5e-3,123456789012345678901234567890]})",
      R"({"k\u00e9y":"\ud83d\ude00\n\t\"q\"\\\/","empty":{},"list":[[],[null],true,false]})",
      "{\"\xe6\x97\xa5\":\"\xf0\x9f\x98\x80\",\"a\":{\"b\":{\"c\":[0.1,2,3]}}}",
      R"([9007199254740993,-9223372036854775808,18446744073709551615,0.000001,1e-7])",
      R"("just a string \u0000")",
      R"( 42 )",
  };
  return corpus;
}

// Ours and nlohmann's trees hold the same value.
void ExpectSame(const JsonValue& ours, const Json& theirs, const std::string& where) {
  using K = JsonValue::Kind;
  switch (ours.kind) {
    case K::kNull: EXPECT_TRUE(theirs.is_null()) << where; return;
    case K::kBool:
      ASSERT_TRUE(theirs.is_boolean()) << where;
      EXPECT_EQ(ours.boolean, theirs.get<bool>()) << where;
      return;
    case K::kString:
      ASSERT_TRUE(theirs.is_string()) << where;
      EXPECT_EQ(ours.text, theirs.get<std::string>()) << where;
      return;
    case K::kNumber: {
      ASSERT_TRUE(theirs.is_number()) << where;
      if (ours.integer && theirs.is_number_unsigned()) {
        EXPECT_EQ(ours.text, std::to_string(theirs.get<uint64_t>())) << where;
      } else if (ours.integer && theirs.is_number_integer()) {
        EXPECT_EQ(ours.text, std::to_string(theirs.get<int64_t>())) << where;
      } else {
        EXPECT_EQ(std::strtod(ours.text.c_str(), nullptr), theirs.get<double>()) << where << " " << ours.text;
      }
      return;
    }
    case K::kArray:
      ASSERT_TRUE(theirs.is_array()) << where;
      ASSERT_EQ(ours.array().size(), theirs.size()) << where;
      for (size_t i = 0; i < ours.array().size(); ++i) ExpectSame(ours.array()[i], theirs[i], where);
      return;
    case K::kObject:
      ASSERT_TRUE(theirs.is_object()) << where;
      ASSERT_EQ(ours.object().size(), theirs.size()) << where;
      for (const auto& [key, member] : ours.object()) {
        ASSERT_TRUE(theirs.contains(key)) << where;
        ExpectSame(member, theirs.at(key), where);
      }
      return;
  }
}

TEST(JsonValueMutation, ParsesWhatNlohmannParsesAndKeepsTheSameValues) {
  std::mt19937_64 rng(1201);
  JsonLimits limits;
  limits.max_depth = kMaxDepth;
  size_t kept = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string& base = Corpus()[round % Corpus().size()];
    const std::string text = round < static_cast<int>(Corpus().size()) ? base : testing::MutateJsonText(base, rng);
    const Result<JsonValue> ours = ParseJsonValue(text, limits);
    const JsonReference reference = testing::NlohmannVerdict(text);
    if (reference == JsonReference::kUnknown) {
      EXPECT_FALSE(ours.ok()) << "a number beyond a double: " << text;
      continue;
    }
    const bool expected = reference == JsonReference::kValid && !testing::HasRepeatedKey(text) &&
                          testing::JsonDepth(text) <= kMaxDepth;
    ASSERT_EQ(ours.ok(), expected) << text << " -> " << (ours.ok() ? "ok" : ours.status().ToString());
    if (!ours.ok()) continue;
    ++kept;
    ExpectSame(*ours, Json::parse(text), text);
    // The canonical text reads back to the same value.
    const Result<JsonValue> again = ParseJsonValue(CanonicalText(*ours));
    ASSERT_TRUE(again.ok()) << text;
    EXPECT_TRUE(*again == *ours) << text;
  }
  EXPECT_GT(kept, 4000u);
  EXPECT_LT(kept, 36000u);
}

}  // namespace
}  // namespace las::reducers
