#include "base/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace las {
namespace {

// A prefix bounded in bytes never cuts a character: "é" is two bytes, "€" three, "😀" four.
TEST(Utf8PrefixTest, ABoundedPrefixEndsBetweenCharacters) {
  EXPECT_EQ(Utf8PrefixOfAtMost("abc", 5), "abc");
  EXPECT_EQ(Utf8PrefixOfAtMost("abc", 3), "abc");
  EXPECT_EQ(Utf8PrefixOfAtMost("abc", 2), "ab");
  EXPECT_EQ(Utf8PrefixOfAtMost("", 0), "");
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 1), "a");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 2), "a");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 3), "a\xC3\xA9");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 5), "a\xC3\xA9");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 6), "a\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 9), "a\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 10), text);
  EXPECT_EQ(Utf8PrefixOfAtMost(text, 0), "");
}

}  // namespace
}  // namespace las
