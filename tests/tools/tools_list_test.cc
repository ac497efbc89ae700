// tools/list and search over precomputed catalog entries (tools/catalog.h,
// tools/tools_list_cache.h, tools/tool_search.h): the spliced answer is the same JSON the
// whole list dumps to; the cache is reused only while nothing it depends on changed, and a
// disabled source leaves the list on the next request; search keys built once give the
// same hits as computing them per query.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "tests/support/temp_dir.h"
#include "tools/builtin_tools.h"
#include "tools/catalog.h"
#include "tools/live_projections.h"
#include "tools/source_events.h"
#include "tools/source_guard.h"
#include "tools/tool_search.h"
#include "tools/tools_list_cache.h"

namespace las::tools {
namespace {

using OrderedJson = nlohmann::ordered_json;

// A surface's tools as federation admits them (every schema compiles).
void AddSurface(Catalog& catalog, const std::string& surface,
                const std::vector<trust::LiveTool>& live) {
  trust::SurfaceBinding binding;
  binding.name = surface;
  for (const auto& tool : live) {
    trust::ToolBinding signed_tool;
    signed_tool.name = tool.name;
    binding.tools.push_back(signed_tool);
  }
  ASSERT_TRUE(catalog.AddSurface(binding, live).empty());
}

trust::LiveTool Live(std::string name, std::optional<std::string> description,
                     std::string schema = R"({"type":"object"})") {
  trust::LiveTool tool;
  tool.name = std::move(name);
  tool.description = std::move(description);
  tool.input_schema_json = std::move(schema);
  return tool;
}

CatalogTool Builtin(std::string name) {
  CatalogTool tool;
  tool.qualified_name = std::move(name);
  tool.surface = "las";
  tool.tool = tool.qualified_name.substr(5);
  tool.input_schema_json = R"({"type":"object"})";
  return tool;
}

Catalog TwoSurfaces() {
  Catalog catalog;
  AddSurface(catalog, "echo",
             {Live("say", "Say it back: \"quoted\" \xC5\xBC\xC3\xB3\xC5\x82w \xE2\x80\xA6",
                   R"( { "type" : "object", "properties" : { "text" : {"type":"string"} } } )"),
              Live("quiet", std::nullopt)});
  AddSurface(catalog, "mail", {Live("send", "Send a message",
                                    R"({"type":"object","properties":{"to":{"type":"string"}}})")});
  for (const char* name : {"las__search", "las__describe", "las__list_tools", "las__call",
                           "las__onboarding", "las__state_get"}) {
    catalog.AddBuiltin(Builtin(name));
  }
  return catalog;
}

// What tools/list was before entries were precomputed: one nlohmann tree, dumped whole.
std::string WholeDump(const Catalog& catalog, const std::function<bool(const CatalogTool&)>& keep) {
  OrderedJson tools = OrderedJson::array();
  for (const auto& tool : catalog.tools()) {
    if (!keep(tool)) continue;
    OrderedJson entry;
    entry["name"] = tool.qualified_name;
    if (tool.description) entry["description"] = *tool.description;
    entry["inputSchema"] = OrderedJson::parse(tool.input_schema_json, nullptr, false);
    tools.push_back(std::move(entry));
  }
  return OrderedJson{{"tools", std::move(tools)}}.dump(-1, ' ', false,
                                                       OrderedJson::error_handler_t::replace);
}

std::vector<std::string> ListedNames(const std::string& tools_list_json) {
  std::vector<std::string> names;
  const auto parsed = nlohmann::json::parse(tools_list_json);
  for (const auto& entry : parsed.at("tools")) {
    names.push_back(entry.at("name").get<std::string>());
  }
  return names;
}

SessionInfo SessionOf(std::string agent) {
  SessionInfo session;
  session.session_id = "s-" + agent;
  session.agent_id = std::move(agent);
  return session;
}

TEST(CatalogListTest, SplicedEntriesAreByteIdenticalToDumpingTheWholeList) {
  const Catalog catalog = TwoSurfaces();
  auto all = [](const CatalogTool&) { return true; };
  auto mail_only = [](const CatalogTool& tool) { return tool.surface == "mail"; };
  EXPECT_EQ(catalog.ToolsListJson(), WholeDump(catalog, all));
  EXPECT_EQ(catalog.ToolsListJson(all), WholeDump(catalog, all));
  EXPECT_EQ(catalog.ToolsListJson(mail_only), WholeDump(catalog, mail_only));
  EXPECT_EQ(catalog.ToolsListJson([](const CatalogTool&) { return false; }), R"({"tools":[]})");
  const auto parsed = nlohmann::json::parse(catalog.ToolsListJson(all));
  EXPECT_EQ(parsed["tools"][0]["name"], "echo__quiet");
  EXPECT_FALSE(parsed["tools"][0].contains("description"));
  EXPECT_EQ(parsed["tools"][1]["inputSchema"]["properties"]["text"]["type"], "string");
}

TEST(CatalogListTest, EveryMutationGivesANewVersion) {
  Catalog catalog;
  const uint64_t empty = catalog.version();
  catalog.AddBuiltin(Builtin("las__search"));
  const uint64_t one = catalog.version();
  EXPECT_NE(one, empty);
  AddSurface(catalog, "echo", {Live("say", "Say")});
  const uint64_t two = catalog.version();
  EXPECT_NE(two, one);
  catalog.SetSurfaceExtras("echo", {}, {}, {{"say", "Say it"}});
  EXPECT_NE(catalog.version(), two);
  EXPECT_NE(Catalog().version(), catalog.version()) << "versions are never reused";
}

// The source guard over a real log, as `las serve` has it.
class ToolsListCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = log::EventLog::Open(tmp_.Sub("log"));
    ASSERT_TRUE(opened.ok());
    log_ = std::move(*opened);
    live_ = std::make_unique<LiveProjections>(*log_);
    ASSERT_TRUE(live_->CatchUp().ok());
  }
  void Append(log::EventDraft event) {
    ASSERT_TRUE(log_->Append({std::move(event)}).ok());
    ASSERT_TRUE(live_->CatchUp().ok());
  }

  testing::TempDir tmp_;
  std::unique_ptr<log::EventLog> log_;
  std::unique_ptr<LiveProjections> live_;
  Catalog catalog_ = TwoSurfaces();
  ToolsListCache cache_;
};

TEST_F(ToolsListCacheTest, ADisabledSourceLeavesTheListAtOnceAndAnUnchangedListIsReused) {
  SourceGuard guard(*live_, false);
  const std::vector<CallGuard*> guards = {&guard};
  const SessionInfo session = SessionOf("agent");
  const std::string first = cache_.Get(catalog_, guards, session);
  EXPECT_EQ(first, catalog_.ToolsListJson()) << "every source enabled: everything listed";
  EXPECT_EQ(cache_.builds(), 1u);
  EXPECT_EQ(cache_.Get(catalog_, guards, session), first);
  EXPECT_EQ(cache_.builds(), 1u) << "nothing changed: reused";

  Append(SourceDisabledEvent("echo", "maintenance", "", ""));
  const std::string disabled = cache_.Get(catalog_, guards, session);
  EXPECT_EQ(cache_.builds(), 2u);
  for (const auto& name : ListedNames(disabled)) EXPECT_NE(name.rfind("echo__", 0), 0u) << name;
  EXPECT_EQ(disabled, WholeDump(catalog_, [](const CatalogTool& t) { return t.surface != "echo"; }));

  Append(SourceEnabledEvent("echo", "agent", "s-1"));
  EXPECT_EQ(cache_.Get(catalog_, guards, session), first);

  catalog_.AddBuiltin(Builtin("las__read_doc"));
  const auto names = ListedNames(cache_.Get(catalog_, guards, session));
  EXPECT_NE(std::find(names.begin(), names.end(), "las__read_doc"), names.end())
      << "a changed catalog is not served from the cache";
}

TEST_F(ToolsListCacheTest, LazyListsTheDiscoveryToolsAndOnboarding) {
  SourceGuard guard(*live_, true);
  const auto names = ListedNames(cache_.Get(catalog_, {&guard}, SessionOf("agent")));
  EXPECT_EQ(names, (std::vector<std::string>{"las__call", "las__describe", "las__list_tools",
                                             std::string(kOnboardingTool), "las__search"}));
}

// A listing rule that depends on the agent and on a flag the test flips.
class AgentGuard final : public CallGuard {
 public:
  explicit AgentGuard(bool promise) : promise_(promise) {}
  std::optional<Refusal> BeforeCall(const SessionInfo&, const CatalogTool&,
                                    std::string_view) override {
    return std::nullopt;
  }
  bool Listed(const SessionInfo& session, const CatalogTool& tool) const override {
    return !(hide_mail_ && session.agent_id == "b" && tool.surface == "mail");
  }
  std::optional<uint64_t> ListingGeneration(const SessionInfo&) const override {
    if (!promise_) return std::nullopt;
    return generation_;
  }
  void HideMail(bool hide) {
    hide_mail_ = hide;
    ++generation_;
  }
  void HideMailSilently(bool hide) { hide_mail_ = hide; }

 private:
  bool promise_;
  bool hide_mail_ = false;
  uint64_t generation_ = 0;
};

TEST_F(ToolsListCacheTest, AnswersAreKeptPerAgentAndFollowTheGuardsGeneration) {
  AgentGuard agents(true);
  SourceGuard sources(*live_, false);
  const std::vector<CallGuard*> guards = {&sources, &agents};
  agents.HideMail(true);
  const std::string a = cache_.Get(catalog_, guards, SessionOf("a"));
  const std::string b = cache_.Get(catalog_, guards, SessionOf("b"));
  EXPECT_EQ(a, catalog_.ToolsListJson());
  EXPECT_EQ(b, WholeDump(catalog_, [](const CatalogTool& t) { return t.surface != "mail"; }));
  EXPECT_EQ(cache_.Get(catalog_, guards, SessionOf("a")), a);
  EXPECT_EQ(cache_.Get(catalog_, guards, SessionOf("b")), b);
  EXPECT_EQ(cache_.builds(), 2u) << "one build per agent, then reused";
  agents.HideMail(false);
  EXPECT_EQ(cache_.Get(catalog_, guards, SessionOf("b")), a) << "a new generation rebuilds";
}

// Agents whose listings are equal share one copy (probe P2: 64 agents kept 64 equal copies).
TEST_F(ToolsListCacheTest, AgentsWithEqualListingsShareOneCopy) {
  AgentGuard agents(true);
  SourceGuard sources(*live_, false);
  const std::vector<CallGuard*> guards = {&sources, &agents};
  agents.HideMail(true);
  const std::string* first = &cache_.Get(catalog_, guards, SessionOf("agent-0"));
  for (int i = 1; i < 10; ++i) {
    const std::string* same = &cache_.Get(catalog_, guards, SessionOf("agent-" + std::to_string(i)));
    EXPECT_EQ(same, first) << "agent-" << i << " got a copy of its own";
  }
  const std::string* b = &cache_.Get(catalog_, guards, SessionOf("b"));
  EXPECT_NE(b, first) << "a different listing is its own";
  EXPECT_NE(*b, *first);
  EXPECT_EQ(&cache_.Get(catalog_, guards, SessionOf("agent-3")), first) << "still cached";
}

TEST_F(ToolsListCacheTest, AGuardWithoutAGenerationIsAskedOnEveryRequest) {
  AgentGuard agents(false);
  SourceGuard sources(*live_, false);
  const std::vector<CallGuard*> guards = {&sources, &agents};
  const std::string all = cache_.Get(catalog_, guards, SessionOf("b"));
  EXPECT_EQ(all, catalog_.ToolsListJson());
  agents.HideMailSilently(true);
  EXPECT_NE(cache_.Get(catalog_, guards, SessionOf("b")), all);
  EXPECT_EQ(cache_.builds(), 2u);
}

TEST(PrecomputedSearchTest, CatalogKeysGiveTheSameHitsAsKeysComputedPerQuery) {
  Catalog catalog = TwoSurfaces();
  catalog.SetSurfaceExtras("mail", {}, {}, {{"send", "Dispatch"}});
  std::vector<CatalogTool> bare(catalog.tools().begin(), catalog.tools().end());
  std::vector<const CatalogTool*> prepared, unprepared;
  for (const auto& tool : catalog.tools()) {
    EXPECT_TRUE(tool.search.ready) << tool.qualified_name;
    prepared.push_back(&tool);
  }
  for (auto& tool : bare) {
    tool.search = SearchKeys{};
    unprepared.push_back(&tool);
  }
  for (const char* query : {"say", "ECHO", "dispatch", "text", "message to", "\xC5\xBC\xC3\xB3\xC5\x82w",
                            "las", "nothing"}) {
    const auto a = SearchTools(prepared, query, 3);
    const auto b = SearchTools(unprepared, query, 3);
    ASSERT_EQ(a.size(), b.size()) << query;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].tool->qualified_name, b[i].tool->qualified_name) << query;
      EXPECT_EQ(a[i].score, b[i].score) << query;
    }
  }
  const auto titled = SearchTools(prepared, "dispatch", 10);
  ASSERT_EQ(titled.size(), 1u);
  EXPECT_EQ(titled[0].score, kTitleHit) << "a title set after AddSurface is searched";

  // A restarted child that declares no title: the previous child's is gone (probe CG3).
  catalog.SetSurfaceExtras("mail", {}, {}, {});
  for (const auto& tool : catalog.tools()) {
    if (tool.surface == "mail") {
      EXPECT_EQ(tool.title, "") << tool.qualified_name;
    }
  }
  std::vector<const CatalogTool*> after;
  for (const auto& tool : catalog.tools()) after.push_back(&tool);
  EXPECT_TRUE(SearchTools(after, "dispatch", 10).empty());
  auto everything = [](const CatalogTool&) { return true; };
  EXPECT_TRUE(SearchCatalog(catalog, "dispatch", 10, everything).empty());
}

}  // namespace
}  // namespace las::tools

namespace las::tools {
namespace {

// The word index gives exactly what SearchTools gives over the visible tools.
TEST(SearchIndexTest, SameHitsAsScanningEveryToolWithVisibilityApplied) {
  Catalog catalog;
  AddSurface(catalog, "weather",
             {Live("forecast", "Fetch the forecast for a city",
                   R"({"type":"object","properties":{"city_name":{"type":"string"}}})"),
              Live("alerts", "Severe-weather alerts \xC5\xBC\xC3\xB3\xC5\x82w"),
              Live("history", std::nullopt,
                   R"({"type":"object","properties":{"weather_station":{"type":"string"}}})")});
  AddSurface(catalog, "mail", {Live("send", "Send a message to a city office")});
  catalog.SetSurfaceExtras("mail", {}, {}, {{"send", "Weather-proof mail"}});
  for (const char* name : {"las__search", "las__call"}) catalog.AddBuiltin(Builtin(name));
  auto not_mail = [](const CatalogTool& tool) { return tool.surface != "mail"; };
  std::vector<const CatalogTool*> all, visible;
  for (const auto& tool : catalog.tools()) {
    all.push_back(&tool);
    if (not_mail(tool)) visible.push_back(&tool);
  }
  for (const char* query : {"weather", "WEATHER city", "city", "station", "ath", "\xC5\xBC\xC3\xB3",
                            "las", "forecast_city", "weather nonexistent", "", "  ", "e"}) {
    for (size_t limit : {size_t{0}, size_t{2}, size_t{10}}) {
      const auto want = SearchTools(all, query, limit);
      const auto got = SearchCatalog(catalog, query, limit, [](const CatalogTool&) { return true; });
      ASSERT_EQ(got.size(), want.size()) << query << " " << limit;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].tool, want[i].tool) << query;
        EXPECT_EQ(got[i].score, want[i].score) << query;
      }
      const auto want_visible = SearchTools(visible, query, limit);
      const auto got_visible = SearchCatalog(catalog, query, limit, not_mail);
      ASSERT_EQ(got_visible.size(), want_visible.size()) << query << " " << limit;
      for (size_t i = 0; i < got_visible.size(); ++i) {
        EXPECT_EQ(got_visible[i].tool, want_visible[i].tool) << query;
      }
    }
  }
  const auto weather = SearchCatalog(catalog, "weather", 10, not_mail);
  ASSERT_EQ(weather.size(), 3u);
  EXPECT_EQ(weather[0].score, kNameHit);
  catalog.AddBuiltin(Builtin("las__weather_report"));
  EXPECT_EQ(SearchCatalog(catalog, "report", 10, not_mail).size(), 1u)
      << "the index follows a changed catalog";
}

}  // namespace
}  // namespace las::tools
