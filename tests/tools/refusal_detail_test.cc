#include "tools/refusal_detail.h"

#include <gtest/gtest.h>

#include <string>

namespace las::tools {
namespace {

TEST(RefusalDetailTest, TheMessageGetsWhereWithoutRepeatingItself) {
  EXPECT_EQ(RefusalDetailForMessage("the arguments do not match the input schema: \"/a\" fails type"),
            "\"/a\" fails type");
  EXPECT_EQ(RefusalDetailForMessage("the arguments do not match the input schema"), "");
  EXPECT_EQ(RefusalDetailForMessage("arguments must be a JSON object"), "arguments must be a JSON object");
}

// Cut between two failures, never inside a pointer (probe IK1), within the bound.
TEST(RefusalDetailTest, ALongDetailIsCutBetweenTwoFailures) {
  std::string detail = "the arguments do not match the input schema: ";
  for (char c = 'a'; c <= 'h'; ++c) {
    detail += std::string(c == 'a' ? "" : "; ") + "\"/" + std::string(64, c) + "\" fails additionalProperties";
  }
  const std::string shown = RefusalDetailForMessage(detail);
  EXPECT_LE(shown.size(), kMaxRefusalDetailInMessage + 4);
  ASSERT_TRUE(shown.ends_with("\" fails additionalProperties ...")) << shown;
  EXPECT_NE(detail.find(shown.substr(0, shown.size() - 4)), std::string::npos) << shown;
  EXPECT_EQ(shown.find("; ...", 0), std::string::npos);
}

// A key may hold "; " itself: the cut is never there (probe IO1).
TEST(RefusalDetailTest, ASeparatorInsideAKeyIsNoPlaceToCut) {
  std::string detail;
  for (int i = 0; i < 8; ++i) {
    detail += std::string(i == 0 ? "" : "; ") + "\"/k0" + std::to_string(i) + "; \\\"" +
              std::string(55, 'C') + "\" fails type";
  }
  const std::string shown = RefusalDetailForMessage(detail);
  ASSERT_TRUE(shown.ends_with("\" fails type ...")) << shown;
  EXPECT_TRUE(detail.starts_with(shown.substr(0, shown.size() - 4))) << shown;
}

// One failure longer than the bound is cut at a character boundary.
TEST(RefusalDetailTest, AnUncuttableFailureIsCutBetweenCharacters) {
  std::string detail = "\"/";
  for (int i = 0; i < 400; ++i) detail += "\xC3\xA9";  // é
  detail += "\" fails type";
  const std::string shown = RefusalDetailForMessage(detail);
  ASSERT_TRUE(shown.ends_with(" ...")) << shown;
  const std::string kept = shown.substr(0, shown.size() - 4);
  EXPECT_LE(kept.size(), kMaxRefusalDetailInMessage);
  EXPECT_EQ(kept.size() % 2, 0u) << "\"/ and whole two-byte characters";
  EXPECT_TRUE(detail.starts_with(kept));
}

}  // namespace
}  // namespace las::tools
