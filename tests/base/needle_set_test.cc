#include "base/needle_set.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace las {
namespace {

bool NaiveFound(std::string_view text, const std::vector<std::string>& needles) {
  for (const std::string& needle : needles) {
    if (!needle.empty() && text.find(needle) != std::string_view::npos) return true;
  }
  return false;
}

TEST(NeedleSet, FindsEachNeedleAtTheStartInTheMiddleAndAtTheEnd) {
  const std::vector<std::string> needles = {"alpha-secret", "beta", "gammagamma"};
  const NeedleSet set(needles);
  for (const std::string& needle : needles) {
    EXPECT_TRUE(set.FoundIn(needle)) << needle;
    EXPECT_TRUE(set.FoundIn(needle + " trailing text")) << needle;
    EXPECT_TRUE(set.FoundIn("leading text " + needle + " trailing")) << needle;
    EXPECT_TRUE(set.FoundIn("leading text " + needle)) << needle;
  }
  EXPECT_FALSE(set.FoundIn("alpha-secre bet-a gammagamm"));
  EXPECT_FALSE(set.FoundIn(""));
}

TEST(NeedleSet, AMatchingPrefixWhoseNeedleRunsPastTheEndIsNoMatch) {
  const NeedleSet set({"abcdefgh"});
  EXPECT_FALSE(set.FoundIn("xxxxabcdefg"));
  EXPECT_FALSE(set.FoundIn("abcd"));
  EXPECT_TRUE(set.FoundIn("xxxxabcdefgh"));
}

TEST(NeedleSet, NeedlesSharingAPrefixAreEachCompared) {
  const NeedleSet set({"tokenAAAA", "tokenBBBB", "token"});
  EXPECT_TRUE(set.FoundIn("a tokenBBBB"));
  EXPECT_TRUE(set.FoundIn("a tokenAAAA b"));
  EXPECT_TRUE(set.FoundIn("toke token"));  // the shortest of them
  EXPECT_FALSE(set.FoundIn("toke tok en"));
  const NeedleSet exactly_a_prefix({"wxyz"});
  EXPECT_TRUE(exactly_a_prefix.FoundIn("wxyz"));
  EXPECT_TRUE(exactly_a_prefix.FoundIn("..wxyz"));
  EXPECT_FALSE(exactly_a_prefix.FoundIn("wxy"));
}

TEST(NeedleSet, NeedlesShorterThanAPrefixAreFoundToo) {
  const NeedleSet set({"ab", "xyz", "longer-needle"});
  EXPECT_TRUE(set.FoundIn("..ab.."));
  EXPECT_TRUE(set.FoundIn("xyz"));
  EXPECT_FALSE(set.FoundIn("a.b.x.y.z"));
}

TEST(NeedleSet, AnEmptyNeedleMatchesNothingAndAnEmptySetFindsNothing) {
  EXPECT_TRUE(NeedleSet({""}).empty());
  EXPECT_FALSE(NeedleSet({""}).FoundIn("anything"));
  EXPECT_FALSE(NeedleSet().FoundIn("anything"));
}

TEST(NeedleSet, ComparesEveryByteExactly) {
  const std::string needle("\x00\xff\x80secret\x01", 10);
  const NeedleSet set({needle, "CaseMatters"});
  EXPECT_TRUE(set.FoundIn(std::string("pre") + needle + "post"));
  EXPECT_FALSE(set.FoundIn(std::string("\x00\xff\x80secreT\x01", 10)));
  EXPECT_FALSE(set.FoundIn("casematters"));
  EXPECT_TRUE(set.FoundIn("xCaseMattersx"));
}

// Against a search per needle, over a three-letter alphabet so that prefixes collide all
// the time and almost every position passes the filter.
TEST(NeedleSet, AgreesWithASearchPerNeedleOnRandomTexts) {
  std::mt19937 random(20261205);
  auto text_of = [&random](size_t size) {
    std::string text;
    for (size_t i = 0; i < size; ++i) text.push_back("abc"[random() % 3]);
    return text;
  };
  int found = 0;
  int missed = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> needles;
    const size_t count = 1 + random() % 12;
    for (size_t i = 0; i < count; ++i) needles.push_back(text_of(1 + random() % 12));
    const NeedleSet set(needles);
    const std::string text = text_of(random() % 64);
    const bool expected = NaiveFound(text, needles);
    ASSERT_EQ(set.FoundIn(text), expected) << "text " << text << ", first needle " << needles[0];
    (expected ? found : missed) += 1;
  }
  // Both answers came up often enough for the comparison to mean something.
  EXPECT_GT(found, 200);
  EXPECT_GT(missed, 200);
}

}  // namespace
}  // namespace las
