#include "trust/utf8_pattern.h"
#include "trust/linear_regex.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "trust/argument_schema.h"

namespace las::trust {
namespace {

std::string Utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

std::string Utf8(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) out += Utf8(c);
  return out;
}

std::string Escape(char32_t c) {  // a \u escape (a surrogate pair above U+FFFF)
  char buf[16];
  if (c < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c));
    return buf;
  }
  const char32_t v = c - 0x10000;
  std::snprintf(buf, sizeof buf, "\\u%04X\\u%04X", static_cast<unsigned>(0xD800 + (v >> 10)),
                static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
  return buf;
}

bool Matches(std::string_view pattern, const std::string& subject) {
  Result<std::string> translated = TranslatePatternToUtf8(pattern);
  EXPECT_TRUE(translated.ok()) << pattern << ": " << translated.status().ToString();
  if (!translated.ok()) return false;
  return std::regex_search(subject, std::regex(*translated));
}

TEST(Utf8Pattern, CharactersNotBytes) {
  struct Case {
    const char* pattern;
    std::u32string subject;
    bool match;
  };
  for (const Case& c : std::vector<Case>{
           {"^.$", U"\u00e9", true},  // was refused: two bytes
           {"^.{2}$", U"\u00e9", false},  // was accepted
           {"^.$", U"\U0001F600", true},
           {"^[\u00e9]$", U"\u00e9", true},
           {"^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff ]+$", U"Jos\u00e9 \u00d8ster", true},
           {"^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff ]+$", U"\u00d7", false},  // was accepted
           {"^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff ]+$", U"\u0100", false},
           {"^[^/]+$", U"r\u00e9sum\u00e9", true},
           {"^[^\u00e9]$", U"\u00e8", true},
           {"^[^\u00e9]$", U"\u00e9", false},
           {"^\u65e5{2}$", U"\u65e5\u65e5", true},
           {"^\u65e5{2}$", U"\u65e5", false},
           {"^\\u00e9+$", U"\u00e9\u00e9", true},
           {"^\\xe9$", U"\u00e9", true},
           {"^\\uD83D\\uDE00$", U"\U0001F600", true},
           {"^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$", U"\U0001F610", true},
           {"^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$", U"\U0001F650", false},
           {"^\\S+$", U"a\u00a0b", false},  // ECMAScript's \s holds U+00A0
           {"^\\S+$", U"a\u3000b", false},
           {"^\\S+$", U"\u00e9t\u00e9", true},
           {"^\\s$", U"\ufeff", true},
           {"^\\W$", U"\u00e9", true},
           {"^\\w$", U"\u00e9", false},
           {"^\\D{3}$", U"\u00e9\u00e8\u00ea", true},
           {"^.$", U"\u2028", false},  // a line terminator
           {"^.$", U"\n", false},
           {"^[]$", U"a", false},
           {"^[^]$", U"\u00e9", true},
           {"^(\u00e9|x)\\1$", U"\u00e9\u00e9", true},
           {"^[a\\-z]+$", U"-", true},
           {"^[\\d\u00e9-\u00eb]+$", U"1\u00ea", true},
           {"^[\\cJ]$", U"\n", true},
       }) {
    EXPECT_EQ(Matches(c.pattern, Utf8(c.subject)), c.match) << c.pattern << " on " << Utf8(c.subject);
  }
}

TEST(Utf8Pattern, ErrorsNameTheReasonWithoutTheText) {
  for (const char* bad : {"[abc", "[z-a]", "\\uD800", "[\\uDC00]", "[\\cJ\\c1]", "[\\1]", "a\xC3",
                          "a{1001}", "a{2,1001}", "^a{4294967296}$", "a{99999999999999999999}",
                          "(a)\\10", "\\5555555555555559555555", ",{97199259007199254740993"}) {
    Result<std::string> t = TranslatePatternToUtf8(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
    EXPECT_TRUE(t.status().message().starts_with("the pattern ")) << t.status().message();
  }
}

// Repeat counts up to RE2's 1000 pass; other braces are left as they are. (Found
// by fuzzing: std::regex wrapped 4294967296 around to 0, RE2 read it as text, and counts
// and back-reference numbers past the integer range overflowed inside std::regex.)
TEST(Utf8Pattern, RepeatCountsAreBoundedAndOtherBracesAreLiterals) {
  for (const char* fine : {"a{1000}", "a{0,1000}", "a{5,}", "{", "a{", "a{,5}", "{x}", "a{1,2,3}"}) {
    EXPECT_TRUE(TranslatePatternToUtf8(fine).ok()) << fine;
  }
  const Result<std::string> refused = TranslatePatternToUtf8("^a{4294967296}$");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "the pattern has a repeat count above 1000");
  EXPECT_TRUE(Matches("^a{3}$", "aaa"));
  EXPECT_FALSE(Matches("^a{3}$", "a{3}"));
}

// Classes against set membership over every encoded length and the surrogate gap.
TEST(Utf8Pattern, ClassesMatchExactlyTheirCodePoints) {
  const std::vector<char32_t> edges = {0x0,    0x7F,   0x80,   0x7FF,  0x800,   0xFFF,   0x1000,  0xD7FF,
                                       0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF};
  std::mt19937 random(7);
  std::uniform_int_distribution<uint32_t> any(1, 0x10FFFF);
  auto valid = [](char32_t c) { return c < 0xD800 || c > 0xDFFF; };
  for (int round = 0; round < 60; ++round) {
    std::vector<std::pair<char32_t, char32_t>> ranges;
    std::string cls;
    for (int k = 0; k < 3; ++k) {
      char32_t a = round % 2 ? edges[random() % edges.size()] : any(random);
      char32_t b = any(random) % 4 == 0 ? a : std::min<char32_t>(0x10FFFF, a + static_cast<char32_t>(random() % 0x3000));
      if (!valid(a) || !valid(b) || a == 0) continue;
      ranges.emplace_back(a, b);
      cls += Escape(a) + "-" + Escape(b);
    }
    if (cls.empty()) continue;
    const bool negated = round % 3 == 0;
    const std::string pattern = std::string("^[") + (negated ? "^" : "") + cls + "]$";
    Result<std::string> translated = TranslatePatternToUtf8(pattern);
    ASSERT_TRUE(translated.ok()) << pattern << ": " << translated.status().ToString();
    const std::regex re(*translated);
    std::vector<char32_t> probes;
    for (auto [a, b] : ranges) {
      for (char32_t c : {a - 1, a + 0, a + 1, b - 1, b + 0, b + 1}) probes.push_back(static_cast<char32_t>(c));
    }
    for (char32_t e : edges) probes.push_back(e);
    for (int k = 0; k < 40; ++k) probes.push_back(any(random));
    for (char32_t c : probes) {
      if (!valid(c) || c > 0x10FFFF || c == 0) continue;
      bool in = false;
      for (auto [a, b] : ranges) in = in || (c >= a && c <= b);
      EXPECT_EQ(std::regex_match(Utf8(c), re), in != negated)
          << pattern << " on U+" << std::hex << static_cast<uint32_t>(c);
    }
  }
}

// Random patterns over a mixed alphabet against std::wregex, which matches code points
// (wchar_t holds one on Linux). \s, \S and `.` next to line terminators are left out:
// there wregex follows the C library's locale, not ECMAScript (tested above).
TEST(Utf8Pattern, AgreesWithWideRegexOnRandomPatterns) {
  const std::u32string alphabet = U"ab0-_ \u00e9\u00e8\u00d7\u00ff\u0100\u65e5\U0001F600";
  std::mt19937 random(20261201);
  auto pick = [&] { return alphabet[random() % alphabet.size()]; };
  auto atom = [&]() -> std::u32string {
    switch (random() % 9) {
      case 0: return U".";
      case 1: return std::u32string(1, pick());
      case 2: return U"\\w";
      case 3: return U"\\D";
      case 4: return U"\\b";
      case 5: return U"(?:" + std::u32string(1, pick()) + U"|" + std::u32string(1, pick()) + U"\\s)";
      default: {
        std::u32string cls = random() % 3 == 0 ? U"[^" : U"[";
        for (int k = 0, n = 1 + static_cast<int>(random() % 3); k < n; ++k) {
          char32_t a = pick(), b = pick();
          if (a == U'-' || b == U'-') { cls += U"\\-"; continue; }
          if (random() % 2 && a < b) cls += std::u32string{a, U'-', b};
          else cls += a;
        }
        return cls + U"]";
      }
    }
  };
  int compared = 0;
  std::vector<std::string> batch;  // every pattern of the last rounds, for LinearRegexSet
  for (int round = 0; round < 300; ++round) {
    std::u32string pattern = random() % 2 ? U"^" : U"";
    for (int k = 0, n = 1 + static_cast<int>(random() % 4); k < n; ++k) {
      const std::u32string next = atom();
      pattern += next;
      const char32_t* quantifiers[] = {U"", U"?", U"*", U"+", U"{2}", U"{1,3}"};
      if (next != U"\\b") pattern += quantifiers[random() % 6];  // an assertion takes none
    }
    if (random() % 2) pattern += U"$";
    const std::wstring wide_pattern(pattern.begin(), pattern.end());
    const std::wregex reference(wide_pattern);
    Result<std::string> translated = TranslatePatternToUtf8(Utf8(pattern));
    ASSERT_TRUE(translated.ok()) << Utf8(pattern);
    const std::regex re(*translated);
    // What argument validation runs (trust/linear_regex.h): RE2 on the same translation.
    Result<std::string> for_re2 = TranslatePattern(Utf8(pattern), PatternTarget::kRe2CodePoints);
    ASSERT_TRUE(for_re2.ok()) << Utf8(pattern);
    Result<LinearRegex> linear = LinearRegex::Compile(*for_re2);
    ASSERT_TRUE(linear.ok()) << Utf8(pattern) << ": " << linear.status().ToString();
    batch.push_back(*for_re2);
    if (batch.size() > 8) batch.erase(batch.begin());
    std::vector<LinearRegex> batch_alone;
    for (const std::string& one : batch) batch_alone.push_back(*LinearRegex::Compile(one));
    Result<LinearRegexSet> set = LinearRegexSet::Compile(batch);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    for (int s = 0; s < 20; ++s) {
      std::u32string subject;
      for (int k = 0, n = static_cast<int>(random() % 6); k < n; ++k) subject += pick();
      const std::wstring wide_subject(subject.begin(), subject.end());
      const bool want = std::regex_search(wide_subject, reference);
      EXPECT_EQ(std::regex_search(Utf8(subject), re), want) << Utf8(pattern) << " on \"" << Utf8(subject) << "\"";
      EXPECT_EQ(linear->Search(Utf8(subject)), want) << Utf8(pattern) << " on \"" << Utf8(subject) << "\" (RE2)";
      std::vector<int> alone;
      for (size_t i = 0; i < batch_alone.size(); ++i) {
        if (batch_alone[i].Search(Utf8(subject))) alone.push_back(static_cast<int>(i));
      }
      EXPECT_EQ(set->Matches(Utf8(subject)), std::optional<std::vector<int>>(alone)) << Utf8(subject);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 6000);
}

// The bound on regex subjects (1024 bytes) still keeps std::regex's recursion within the
// stack when every character takes the longest translated alternatives.
TEST(Utf8Pattern, LongestSubjectsWithinTheBoundDoNotExhaustTheStack) {
  Result<ArgumentSchema> s = CompileArgumentSchema(
      R"({"properties":{"a":{"type":"string","pattern":"^(?:.|[^x]|\\S)*$"},
                        "b":{"type":"string","pattern":"^[^/]+$"}}})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::string wide;
  while (wide.size() + 4 <= 1024) wide += Utf8(U'\U0001F600');
  std::string ascii(1024, 'q');
  for (const std::string& subject : {wide, ascii}) {
    EXPECT_TRUE(ValidateArguments(*s, R"({"a":")" + subject + R"(","b":")" + subject + "\"}").ok());
  }
}

}  // namespace
}  // namespace las::trust
