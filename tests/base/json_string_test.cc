#include "base/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace las {
namespace {

TEST(JsonString, EscapesAsJcsPrescribes) {
  std::string out;
  AppendJsonString(std::string("a\"\\\b\f\n\r\t\x01\x1f\x7f\xc3\xa9", 13), out);
  EXPECT_EQ(out, "\"a\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9\"");
}

TEST(JsonString, SizeIsWhatAppendWritesForEveryByte) {
  for (int b = 0; b < 256; ++b) {
    const std::string text = "x" + std::string(3, static_cast<char>(b));
    std::string out;
    AppendJsonString(text, out);
    EXPECT_EQ(JsonStringSize(text), out.size()) << "byte " << b;
  }
  EXPECT_EQ(JsonStringSize(""), 2u);
}

}  // namespace
}  // namespace las
