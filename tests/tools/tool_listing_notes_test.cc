// tools/tool_listing_notes.h: what draft and check tell an operator about how tools reach
// clients (probe HA1, HA4: nothing was said of names common clients refuse, of a 1 MiB
// description, or of one holding bidirectional controls).
#include "tools/tool_listing_notes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace las::tools {
namespace {

trust::LiveTool Tool(std::string name, std::optional<std::string> description = "Does a thing.") {
  return trust::LiveTool{std::move(name), R"({"type":"object"})", std::move(description), false};
}

TEST(ToolListingNotes, PortableNamesAreThoseEveryCommonClientTakes) {
  EXPECT_TRUE(IsPortableToolName("files__read_file"));
  EXPECT_TRUE(IsPortableToolName("a__B-1"));
  EXPECT_TRUE(IsPortableToolName(std::string(64, 'a')));
  EXPECT_FALSE(IsPortableToolName(std::string(65, 'a')));
  EXPECT_FALSE(IsPortableToolName("a__b.c"));
  EXPECT_FALSE(IsPortableToolName(""));
}

TEST(ToolListingNotes, NothingIsSaidOfOrdinaryTools) {
  // Emoji sequences, Persian with a ZWNJ, a soft hyphen, CJK, a combining accent: ordinary
  // text (probe HD2: they were named ahead of real controls).
  const std::vector<trust::LiveTool> tools = {
      Tool("read_file"), Tool("write-file", std::nullopt), Tool("search", "Line one.\n\tLine two, indented.\r\n"),
      Tool("heart", "Love \u2764\uFE0F and keycap 1\uFE0F\u20E3"),
      Tool("family", "\U0001F468\u200D\U0001F469\u200D\U0001F467 family"),
      Tool("persian", "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"), Tool("shy", "hyphen\u00ADation"),
      Tool("cjk", "\u691C\u7D22 e\u0301")};
  EXPECT_TRUE(ToolListingNotes("files", tools).empty());
}

TEST(ToolListingNotes, NamesClientsRefuseAreNamedWithTheWayAround) {
  const std::vector<trust::LiveTool> tools = {Tool("b.c"), Tool(std::string(62, 'm')), Tool("fine")};
  const std::vector<std::string> notes = ToolListingNotes("a", tools);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("^[a-zA-Z0-9_-]{1,64}$"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("a__b.c, a__" + std::string(62, 'm')), std::string::npos) << notes[0];
  EXPECT_EQ(notes[0].find("a__fine"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("las__call"), std::string::npos) << notes[0];
}

TEST(ToolListingNotes, ManyAreCountedNotAllNamed) {
  std::vector<trust::LiveTool> tools;
  for (int i = 0; i < 8; ++i) tools.push_back(Tool("t." + std::to_string(i)));
  const std::vector<std::string> notes = ToolListingNotes("s", tools);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("s__t.4 and 3 more"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[0].find("s__t.5"), std::string::npos) << notes[0];
}

TEST(ToolListingNotes, LargeAndHidingDescriptionsAreNamed) {
  const std::vector<trust::LiveTool> tools = {
      Tool("big", std::string(kLargeDescriptionBytes + 1, 'x')),
      Tool("edge", std::string(kLargeDescriptionBytes, 'x')),
      Tool("bidi", "ab\u202Ecd"),
      Tool("esc", "red \x1b[31mtext"),
      Tool("emoji", "fine \u2764\uFE0F"),
      Tool("tags", "hidden \U000E0041\U000E0042 text"),
  };
  const std::vector<std::string> notes = ToolListingNotes("s", tools);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("big (" + std::to_string(kLargeDescriptionBytes + 1) + " bytes)"), std::string::npos)
      << notes[0];
  EXPECT_EQ(notes[0].find("edge"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("bidi, esc, tags"), std::string::npos) << notes[1];
}

// Probe HI2: server-everything's simulate-research-query requires tasks; every call failed.
TEST(ToolListingNotes, ToolsThatRequireTasksAreNamed) {
  std::vector<trust::LiveTool> tools = {Tool("research"), Tool("plain")};
  tools[0].requires_tasks = true;
  const std::vector<std::string> notes = ToolListingNotes("s", tools);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("every call of theirs fails: research"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[0].find("plain"), std::string::npos) << notes[0];
}

TEST(ToolListingNotes, AChildsNameIsShownEscapedAndCut) {
  const std::vector<trust::LiveTool> tools = {Tool(std::string(200, 'n') + ".\x1b")};
  const std::vector<std::string> notes = ToolListingNotes("a", tools);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].find('\x1b'), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("a__" + std::string(125, 'n') + "..."), std::string::npos) << notes[0];
}

}  // namespace
}  // namespace las::tools
