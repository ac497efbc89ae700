// Search words and case folding across scripts (base/search_text.h; probe FC2).
#include "base/search_text.h"

#include <gtest/gtest.h>

namespace las {
namespace {

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view word : SearchWords(text)) out.emplace_back(word);
  return out;
}

TEST(FoldCaseTest, LowerCasesEveryScriptOneToOne) {
  EXPECT_EQ(FoldCase("Echo__MESSAGE"), "echo__message");
  EXPECT_EQ(FoldCase("CAFÉ"), "café");
  EXPECT_EQ(FoldCase("ΑΘΗΝΑ Москва"), "αθηνα москва");
  EXPECT_EQ(FoldCase("ＡＢＣ"), "ａｂｃ") << "fullwidth Latin";
  EXPECT_EQ(FoldCase("Straße"), "straße") << "no one-to-many folding";
  EXPECT_EQ(FoldCase("中文"), "中文");
  EXPECT_EQ(FoldCase("ΟΔΟΣ οδος"), "οδοσ οδοσ") << "the final sigma folds as the other";
}

TEST(FoldCaseTest, KeepsBytesThatAreNotUtf8) {
  const std::string mixed = std::string("A\xFF") + "B\xC3";
  EXPECT_EQ(FoldCase(mixed), std::string("a\xFF") + "b\xC3");
}

TEST(SearchWordsTest, AsciiPunctuationAndUnderscoreSeparate) {
  EXPECT_EQ(Words("echo__message, back"), (std::vector<std::string>{"echo", "message", "back"}));
  EXPECT_TRUE(Words("  _-,. ").empty());
}

TEST(SearchWordsTest, UnicodePunctuationSpacesAndSymbolsSeparate) {
  EXPECT_EQ(Words("alpha—beta"), (std::vector<std::string>{"alpha", "beta"})) << "em dash";
  EXPECT_EQ(Words("one\u00A0two\u3000three"), (std::vector<std::string>{"one", "two", "three"}))
      << "no-break and ideographic spaces";
  EXPECT_EQ(Words("«quoted»"), std::vector<std::string>{"quoted"});
  EXPECT_EQ(Words("天气，预报。"), (std::vector<std::string>{"天气", "预报"})) << "CJK punctuation";
  EXPECT_EQ(Words("sun☀️rain"), (std::vector<std::string>{"sun", "rain"})) << "symbols and emoji";
}

TEST(SearchWordsTest, LettersAndDigitsOfEveryScriptJoin) {
  EXPECT_EQ(Words("café Ελλάδα 東京2024"),
            (std::vector<std::string>{"café", "Ελλάδα", "東京2024"}));
  EXPECT_EQ(Words("cafe\u0301 bar"), (std::vector<std::string>{"cafe\u0301", "bar"}))
      << "a combining accent stays in its word";
}

TEST(SearchWordsTest, BytesThatAreNotUtf8CountAsLetters) {
  const std::string text = std::string("ab\xFF") + "cd ef";
  EXPECT_EQ(Words(text), (std::vector<std::string>{std::string("ab\xFF") + "cd", "ef"}));
}

}  // namespace
}  // namespace las
