// Discovery ranking (tools/tool_search.h): every query token must hit; name > description >
// schema property names > title; nearest names for a wrong name; summaries.
#include "tools/tool_search.h"

#include <gtest/gtest.h>

namespace las::tools {
namespace {

CatalogTool Tool(std::string name, std::string title, std::string description,
                 std::string schema = R"({"type":"object"})") {
  CatalogTool tool;
  tool.qualified_name = std::move(name);
  tool.tool = tool.qualified_name.substr(tool.qualified_name.find("__") + 2);
  tool.surface = tool.qualified_name.substr(0, tool.qualified_name.find("__"));
  tool.title = std::move(title);
  tool.description = std::move(description);
  tool.input_schema_json = std::move(schema);
  return tool;
}

std::vector<std::string> Names(const std::vector<SearchHit>& hits) {
  std::vector<std::string> out;
  for (const auto& hit : hits) out.push_back(hit.tool->qualified_name);
  return out;
}

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tools_ = {
        Tool("alpha__weather", "", "Unrelated"),
        Tool("beta__lookup", "Weather lookup", "Unrelated"),
        Tool("gamma__fetch", "", "Fetch the weather for a city"),
        Tool("delta__query", "", "Unrelated",
             R"({"type":"object","properties":{"weather_station":{"type":"string"}}})"),
        Tool("echo__echo", "", "Echo the message back",
             R"({"type":"object","properties":{"message":{"type":"string"}}})"),
    };
    for (const auto& tool : tools_) pointers_.push_back(&tool);
  }
  std::vector<CatalogTool> tools_;
  std::vector<const CatalogTool*> pointers_;
};

// A property Las fills with a credential is not searchable: the client may not send it and
// tools/list does not show it (probe AL3).
TEST(SearchKeysTest, AnArgumentLasFillsWithACredentialIsNotSearchable) {
  CatalogTool filled = Tool("notes__create", "", "Unrelated",
                            R"({"type":"object","properties":{"session_token":{"type":"string"}}})");
  filled.credential_templates = {{"session_token", "NOTES_TOKEN"}};
  CatalogTool plain = Tool("other__create", "", "Unrelated",
                           R"({"type":"object","properties":{"session_token":{"type":"string"}}})");
  EXPECT_TRUE(SearchKeysOf(filled).properties.empty());
  EXPECT_EQ(SearchKeysOf(plain).properties, std::vector<std::string>{"session_token"});
  EXPECT_EQ(Names(SearchTools({&filled, &plain}, "session token", 10)),
            std::vector<std::string>{"other__create"});
}

// The title is the child's unsigned text: it ranks last (probe CE2).
TEST_F(SearchTest, NameRanksAboveDescriptionAboveSchemaPropertyNamesAboveTitle) {
  auto hits = SearchTools(pointers_, "weather", 10);
  EXPECT_EQ(Names(hits), (std::vector<std::string>{"alpha__weather", "gamma__fetch",
                                                   "delta__query", "beta__lookup"}));
  EXPECT_EQ(hits[0].score, kNameHit);
  EXPECT_EQ(hits[1].score, kDescriptionHit);
  EXPECT_EQ(hits[2].score, kPropertyHit);
  EXPECT_EQ(hits[3].score, kTitleHit);
  const SearchIndex index(tools_);
  EXPECT_EQ(Names(index.Search(tools_, "weather", 10, [](const CatalogTool&) { return true; })),
            Names(hits)) << "the index ranks alike";
}

TEST_F(SearchTest, EveryTokenMustHit) {
  EXPECT_EQ(Names(SearchTools(pointers_, "weather city", 10)),
            std::vector<std::string>{"gamma__fetch"});
  EXPECT_TRUE(SearchTools(pointers_, "weather nonexistentword", 10).empty());
  EXPECT_TRUE(SearchTools(pointers_, "  ", 10).empty()) << "an empty query matches nothing";
}

TEST_F(SearchTest, TokensAreCaseInsensitiveAndSplitOnPunctuation) {
  EXPECT_EQ(QueryTokens("Echo__MESSAGE, back"),
            (std::vector<std::string>{"echo", "message", "back"}));
  auto hits = SearchTools(pointers_, "ECHO message", 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].score, kNameHit + kDescriptionHit);
}

// A query that names a tool exactly ranks it first, and a word said twice counts once
// (probe FC3: `echo__echo` tied with every echo__ tool and lost the tie).
TEST(SearchExactNameTest, AnExactNameRanksFirstAndRepeatedWordsCountOnce) {
  const std::vector<CatalogTool> tools = {Tool("echo__content_stats", "", "Stats"),
                                          Tool("echo__echo", "", "Echo")};
  const std::vector<const CatalogTool*> pointers = {&tools[0], &tools[1]};
  EXPECT_EQ(QueryTokens("echo Echo echo"), std::vector<std::string>{"echo"});
  EXPECT_EQ(Names(SearchTools(pointers, " ECHO__echo ", 1)), std::vector<std::string>{"echo__echo"});
  const SearchIndex index(tools);
  EXPECT_EQ(Names(index.Search(tools, "echo__echo", 1, [](const CatalogTool&) { return true; })),
            std::vector<std::string>{"echo__echo"})
      << "the index ranks alike";
  EXPECT_EQ(Names(SearchTools(pointers, "echo", 1)), std::vector<std::string>{"echo__content_stats"})
      << "a word alone still ties, by name";
}

// Words of every script are split and case-folded alike (probe FC2: "CAFÉ" missed "café" and
// "forecast—daily" was one word), in the index and in the plain search.
TEST(SearchUnicodeTest, FoldsAndSplitsEveryScript) {
  const std::vector<CatalogTool> tools = {
      Tool("menu__list", "", "Liste des plats du café—menu du jour"),
      Tool("weather__now", "", "天气，预报"), Tool("other__tool", "", "Nothing")};
  const std::vector<const CatalogTool*> pointers = {&tools[0], &tools[1], &tools[2]};
  EXPECT_EQ(QueryTokens("CAFÉ—MENU"), (std::vector<std::string>{"café", "menu"}));
  const SearchIndex index(tools);
  const auto all = [](const CatalogTool&) { return true; };
  for (std::string_view query : {"CAFÉ", "jour", "预报", "天气 预报"}) {
    const std::string want = query == "CAFÉ" || query == "jour" ? "menu__list" : "weather__now";
    EXPECT_EQ(Names(SearchTools(pointers, query, 5)), std::vector<std::string>{want}) << query;
    EXPECT_EQ(Names(index.Search(tools, query, 5, all)), std::vector<std::string>{want}) << query;
  }
  EXPECT_TRUE(index.Search(tools, "café—menu—soir", 5, all).empty()) << "every token must hit";
}

TEST_F(SearchTest, LimitKeepsTheBest) {
  EXPECT_EQ(Names(SearchTools(pointers_, "weather", 2)),
            (std::vector<std::string>{"alpha__weather", "gamma__fetch"}));
}

TEST_F(SearchTest, NearestNamesForAWrongName) {
  auto nearest = NearestNames(pointers_, "echo__ehco", 2);
  ASSERT_EQ(nearest.size(), 2u);
  EXPECT_EQ(nearest[0], "echo__echo");
  EXPECT_EQ(NearestNames(pointers_, "wether", 1), std::vector<std::string>{"alpha__weather"})
      << "the bare tool name counts too";
}

TEST(SummaryTest, FirstLineBoundedAtAUtf8Boundary) {
  CatalogTool tool;
  tool.description = "First line.\nSecond line.";
  EXPECT_EQ(Summary(tool), "First line.");
  tool.description = "First line.\r\nSecond line.";  // probe IN2: the CR stayed
  EXPECT_EQ(Summary(tool), "First line.");
  tool.description = "First line.\rSecond line.";
  EXPECT_EQ(Summary(tool), "First line.");
  // 157 bytes of text and a 3-byte ellipsis: at most 160 in all (probe O2-3: it was 163).
  tool.description = std::string(200, 'a');
  EXPECT_EQ(Summary(tool), std::string(157, 'a') + "\xE2\x80\xA6");
  tool.description = std::string(156, 'a') + "\xC3\xA9" + "tail";  // é straddles byte 157
  const std::string summary = Summary(tool);
  EXPECT_EQ(summary, std::string(156, 'a') + "\xE2\x80\xA6");
  tool.description.reset();
  EXPECT_EQ(Summary(tool), "");
}

TEST(SchemaPropertiesTest, TopLevelPropertyNamesOnly) {
  EXPECT_EQ(SchemaPropertyNames(R"({"properties":{"a":{"properties":{"inner":{}}},"b":{}}})"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(SchemaPropertyNames("not json").empty());
}

}  // namespace
}  // namespace las::tools
