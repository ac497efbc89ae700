#include "base/printable_text.h"

#include <gtest/gtest.h>

#include <string>

namespace las {
namespace {

TEST(PrintableText, AcceptsOrdinaryTextInAnyScript) {
  for (const char* ok : {"alice", "agent-7 (build)", "Jos\u00e9", "\u65e5\u672c", "\U0001F600", "tab-less"}) {
    EXPECT_TRUE(IsPrintableText(ok)) << ok;
    EXPECT_EQ(EscapeForTerminal(ok), ok);
  }
}

TEST(PrintableText, RefusesAndEscapesWhatMovesTheCursorOrReordersText) {
  struct Case {
    std::string text;
    const char* shown;
  };
  for (const Case& c : {Case{"evil\x1b[2Jred", "evil\\u{001B}[2Jred"}, Case{"a\nb", "a\\u{000A}b"},
                        Case{"a\rb", "a\\u{000D}b"}, Case{std::string("a\0b", 3), "a\\u{0000}b"},
                        Case{"a\x7f", "a\\u{007F}"}, Case{"\xc2\x9b" "31m", "\\u{009B}31m"},
                        Case{"abc\u202Efed", "abc\\u{202E}fed"}, Case{"\u2066x\u2069", "\\u{2066}x\\u{2069}"},
                        Case{"line\u2028two", "line\\u{2028}two"}, Case{"\ufeffalice", "\\u{FEFF}alice"},
                        Case{"ali\u200bce", "ali\\u{200B}ce"}, Case{"ops\u061c", "ops\\u{061C}"},
                        Case{"op\u00ads", "op\\u{00AD}s"}, Case{"ops\u180e", "ops\\u{180E}"},
                        Case{"ops\U000E0001", "ops\\u{E0001}"}, Case{"\ufff9ops", "\\u{FFF9}ops"},
                        Case{"ops\ufe0f", "ops\\u{FE0F}"}, Case{"o\u3164ps", "o\\u{3164}ps"}}) {
    EXPECT_FALSE(IsPrintableText(c.text)) << c.shown;
    EXPECT_EQ(EscapeForTerminal(c.text), c.shown);
  }
}

TEST(PrintableText, IllFormedUtf8IsRefusedAndEachBadByteShown) {
  struct Case {
    std::string text;
    const char* shown;
  };
  for (const Case& c : {Case{"x\xff", "x\\xFF"}, Case{"\xc3", "\\xC3"}, Case{"\xc0\xaf", "\\xC0\\xAF"},
                        Case{"\xed\xa0\x80", "\\xED\\xA0\\x80"}, Case{"\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"},
                        Case{"\xe6\x97", "\\xE6\\x97"}, Case{"a\xe6\x97" "b", "a\\xE6\\x97b"}}) {
    EXPECT_FALSE(IsPrintableText(c.text)) << c.shown;
    EXPECT_EQ(EscapeForTerminal(c.text), c.shown);
  }
}

TEST(PrintableText, DisplayWidthCountsTerminalColumns) {
  EXPECT_EQ(DisplayWidth("alice"), 5u);
  EXPECT_EQ(DisplayWidth("za\u017c\u00f3\u0142\u0107"), 6u);  // zażółć
  EXPECT_EQ(DisplayWidth("d\u0301e"), 2u);                      // a combining acute takes none
  EXPECT_EQ(DisplayWidth("\u65e5\u672c"), 4u);                  // wide
  EXPECT_EQ(DisplayWidth("\U0001F600"), 2u);                     // emoji
  EXPECT_EQ(DisplayWidth("\U0001F680\U0001FAE0"), 4u);            // more emoji (probe CN5)
  EXPECT_EQ(DisplayWidth("\u0915\u094D\u0937"), 2u);              // a Devanagari virama: none
  EXPECT_EQ(DisplayWidth(""), 0u);
}

TEST(PrintableText, EscapeUnsafeInJsonKeepsTheValueAndHidesNothing) {
  EXPECT_EQ(EscapeUnsafeInJson(R"({"a":"x\u001b"})"), R"({"a":"x\u001b"})");
  EXPECT_EQ(EscapeUnsafeInJson("{\"a\":\"r\u202el \u00f3\"}"), R"({"a":"r\u202el )" "\u00f3\"}");
  EXPECT_EQ(EscapeUnsafeInJson("[\"\U000E0001\"]"), R"(["\udb40\udc01"])");
  EXPECT_EQ(EscapeUnsafeInJson("[\"\xff\"]"), "[\"\xff\"]");  // not JSON's to fix here
}

// A message quoting a huge value keeps its start and its end, cut between characters.
TEST(PrintableText, EscapeAndShortenKeepsBothEndsOfALongMessage) {
  EXPECT_EQ(EscapeAndShorten("short \x1B", 100), "short \\u{001B}");
  const std::string value(100000, 'x');
  const std::string message = "must be a number, not \"" + value + "é\" (see --help)";
  const std::string shown = EscapeAndShorten(message, 300);
  EXPECT_LE(shown.size(), 300u + 40);
  EXPECT_TRUE(shown.starts_with("must be a number, not \"xxx")) << shown;
  EXPECT_TRUE(shown.ends_with("xxé\" (see --help)")) << shown;
  EXPECT_NE(shown.find(" bytes left out) ... "), std::string::npos) << shown;
  EXPECT_TRUE(IsPrintableText(shown));
  const std::string wide(1000, '\xC3');  // ill-formed: each byte shown as \xC3
  EXPECT_TRUE(IsPrintableText(EscapeAndShorten(std::string(500, 'a') + "\xE2\x82\xAC" + wide, 100)));
  std::string euros;
  for (int i = 0; i < 400; ++i) euros += "\xE2\x82\xAC";
  EXPECT_TRUE(IsPrintableText(EscapeAndShorten(euros, 100))) << "cut inside a character";
  // Escapes are kept or left out whole, the count is of the value's bytes, and the end
  // does not start with a combining mark (probe JF4).
  const std::string controls(3000, '\x01');
  const std::string cut = EscapeAndShorten(controls, 300);
  EXPECT_NE(cut.find("\\u{0001} ... ("), std::string::npos) << cut;
  EXPECT_NE(cut.find("left out) ... \\u{0001}"), std::string::npos) << cut;
  const size_t shown_characters = (cut.size() - (cut.find(") ... ") + 6 - cut.find(" ... ("))) / 8;
  EXPECT_NE(cut.find("(" + std::to_string(3000 - shown_characters) + " bytes left out)"), std::string::npos)
      << cut;
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "e\xCC\x81";  // e and a combining acute
  const std::string accented = EscapeAndShorten(accents, 100);
  EXPECT_EQ(accented.find(") ... \xCC\x81"), std::string::npos) << accented;
}

}  // namespace
}  // namespace las
