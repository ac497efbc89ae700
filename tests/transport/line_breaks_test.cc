// EscapeLineBreaksOfOtherReaders (transport/line_breaks.h): what other readers take for a
// line break leaves a JSON text, its value unchanged; other text is left byte for byte.
#include "transport/line_breaks.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

namespace las::transport {
namespace {

std::string Escaped(std::string text) {
  EscapeLineBreaksOfOtherReaders(text);
  return text;
}

TEST(LineBreaksTest, EachBreakOfAnotherReaderIsReplacedAndTheValueKept) {
  const std::string original = "{\"a\":\r[1,\r\n2],\"s\":\"x\u2028y\u2029z\xc2\x85w\"}\r";
  const std::string escaped = Escaped(original);
  EXPECT_EQ(escaped, "{\"a\": [1, \n2],\"s\":\"x\\u2028y\\u2029z\\u0085w\"} ");
  EXPECT_EQ(nlohmann::json::parse(escaped), nlohmann::json::parse(original));
}

TEST(LineBreaksTest, OtherTextIsLeftAsItIs) {
  // Neighbours of the escaped sequences: an em dash (E2 80 94), U+2027, U+0084, U+00A0, a
  // lone lead byte at the end.
  for (const std::string& text : {std::string("{\"s\":\"a\u2014b\u2027c\xc2\x84\xc2\xa0\"}"), std::string("plain"),
                                 std::string(""), std::string("\"\\r\\u2028\""), std::string("x\xe2\x80"),
                                 std::string("y\xc2")}) {
    EXPECT_EQ(Escaped(text), text);
  }
}

TEST(LineBreaksTest, TheGrowthIsWhatTheEscapesAdd) {
  for (const std::string& text :
       {std::string("{\"a\":\r[1,\r\n2],\"s\":\"x\u2028y\u2029z\xc2\x85w\"}\r"),
        std::string("\"\u2028\u2028\xc2\x85\""), std::string("plain"), std::string(""),
        std::string("x\xe2\x80"), std::string("y\xc2")}) {
    EXPECT_EQ(Escaped(text).size(), text.size() + LineBreakEscapeGrowth(text)) << text;
  }
  EXPECT_EQ(LineBreakEscapeGrowth("\u2028\xc2\x85"), 3u + 4u);
}

}  // namespace
}  // namespace las::transport
