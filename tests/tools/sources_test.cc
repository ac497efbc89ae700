// The source inventory (tools/sources.h, tools/source_json.h) and the source guard
// (tools/source_guard.h) over a real log in a temp dir.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "projections/sources_projection.h"
#include "tests/support/temp_dir.h"
#include "tools/builtin_tools.h"
#include "tools/live_projections.h"
#include "tools/page_budget.h"
#include "tools/source_events.h"
#include "tools/source_guard.h"
#include "tools/source_ids.h"
#include "tools/source_json.h"
#include "tools/sources.h"
#include "tools/surface_launcher.h"
#include "transport/line_breaks.h"
#include "trust/argument_schema.h"

namespace las::tools {
namespace {

using nlohmann::json;

CatalogTool Builtin(std::string name) {
  CatalogTool tool;
  tool.qualified_name = std::move(name);
  tool.surface = "las";
  tool.tool = tool.qualified_name.substr(5);
  tool.builtin = true;
  tool.input_schema_json = R"({"type":"object"})";
  return tool;
}

CatalogTool SurfaceTool(std::string surface, std::string tool_name) {
  CatalogTool tool;
  tool.qualified_name = QualifiedName(surface, tool_name);
  tool.surface = std::move(surface);
  tool.tool = std::move(tool_name);
  tool.description = "Does " + tool.tool;
  tool.input_schema_json = R"({"type":"object","properties":{"q":{"type":"string"}}})";
  return tool;
}

SessionInfo Session() {
  SessionInfo session;
  session.session_id = "s-1";
  session.agent_id = "agent";
  return session;
}

// A catalog with Las's own tools, an admitted surface `echo` with seven tools, a prompt
// and a resource, and a configured surface `dead` that failed to start.
struct Federated {
  Catalog catalog;
  std::vector<SurfaceState> surfaces;
  Federated() {
    for (const char* name : {"las__search", "las__call", "las__list_sources", "las__read_doc"}) {
      catalog.AddBuiltin(Builtin(name));
    }
    for (const char* name : {"g", "f", "e", "d", "c", "b", "a"}) {
      catalog.AddBuiltin(SurfaceTool("echo", name));  // builtin flag reset below
    }
    surfaces = {{"dead", false, "start-failed", "", 0}, {"echo", true, "", "", 7}};
    catalog.SetSurfaceExtras("echo", {{"summarize", "Summarize", "", ""}},
                             {{"readme", "", "file:///readme", "text/plain"}});
  }
};

InventoryFacts Facts(const Catalog& catalog, const std::vector<SurfaceState>& surfaces,
                     bool admin) {
  InventoryFacts facts = FactsFromFederation(catalog, surfaces, admin, nullptr, nullptr);
  // AddBuiltin marks every entry builtin; move the surface tools back to their source.
  std::vector<SourceTool> las;
  for (auto& tool : facts.las_tools) {
    if (tool.name.rfind("echo__", 0) == 0) {
      for (auto& c : facts.connections) {
        if (c.id == "echo") c.tools.push_back(tool);
      }
    } else {
      las.push_back(tool);
    }
  }
  facts.las_tools = las;
  return facts;
}

TEST(InventoryTest, EverySourceWithItsCapabilitiesAndAFailedSurfaceSaysWhy) {
  Federated f;
  auto sources = BuildInventory(Facts(f.catalog, f.surfaces, false));
  std::vector<std::string> ids;
  for (const auto& s : sources) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"dead", "echo", "las", "las.admin", "las.docs",
                                           "las.std"}));
  const Source* dead = FindSource(sources, "dead");
  ASSERT_NE(dead, nullptr);
  EXPECT_EQ(dead->kind, "connection");
  EXPECT_TRUE(dead->tools.empty());
  EXPECT_EQ(dead->description, "No catalog loaded for dead: start-failed");
  const Source* echo = FindSource(sources, "echo");
  ASSERT_EQ(echo->tools.size(), 7u);
  EXPECT_EQ(echo->tools.front().name, "echo__a") << "sorted by name";
  EXPECT_EQ(echo->prompts.size(), 1u);
  EXPECT_EQ(echo->resources.size(), 1u);
  EXPECT_TRUE(echo->permissions.calls_upstream);
  const Source* std_source = FindSource(sources, "las.std");
  ASSERT_EQ(std_source->reducers.size(), 5u);
  EXPECT_EQ(std_source->reducers[0].name, "append");
  EXPECT_FALSE(std_source->visibility.mcp_client);
  EXPECT_EQ(FindSource(sources, "las.docs")->resources.size(), 3u);
  // The docs' tool is filed under the docs' source, which the guard switches it with
  // (probe DO1: listed under las, switched with las.docs).
  ASSERT_EQ(FindSource(sources, "las.docs")->tools.size(), 1u);
  EXPECT_EQ(FindSource(sources, "las.docs")->tools[0].name, "las__read_doc");
  for (const auto& tool : FindSource(sources, "las")->tools) EXPECT_NE(tool.name, "las__read_doc");
  // Without --admin the admin tool is not las.admin's (nor las's) and las.admin is not
  // visible to MCP clients.
  const Source* admin = FindSource(sources, "las.admin");
  EXPECT_TRUE(admin->tools.empty());
  EXPECT_FALSE(admin->visibility.mcp_client);
  for (const auto& tool : FindSource(sources, "las")->tools) EXPECT_NE(tool.name, "las__list_sources");
  auto with_admin = BuildInventory(Facts(f.catalog, f.surfaces, true));
  ASSERT_EQ(FindSource(with_admin, "las.admin")->tools.size(), 1u);
  EXPECT_TRUE(FindSource(with_admin, "las.admin")->permissions.mutates_config);
}

TEST(InventoryTest, ListIsCompactPagedWithPreviewsAndHasMoreFlags) {
  Federated f;
  auto sources = BuildInventory(Facts(f.catalog, f.surfaces, false));
  auto page = json::parse(SourceListJson(sources, 0, 2, 5));
  EXPECT_EQ(page["total"], 6);
  EXPECT_EQ(page["offset"], 0);
  EXPECT_EQ(page["next_offset"], 2);
  EXPECT_EQ(page["has_more"], true);
  ASSERT_EQ(page["sources"].size(), 2u);
  const json& echo = page["sources"][1];
  EXPECT_EQ(echo["id"], "echo");
  EXPECT_EQ(echo["counts"]["tools"], 7);
  EXPECT_EQ(echo["preview"]["tools"],
            json({"echo__a", "echo__b", "echo__c", "echo__d", "echo__e"}));
  EXPECT_EQ(echo["has_more"]["tools"], true);
  EXPECT_EQ(echo["has_more"]["prompts"], false);
  EXPECT_EQ(echo["permissions"]["calls_upstream"], true);
  EXPECT_EQ(echo["visibility"]["mcp_client"], true);
  EXPECT_EQ(page.dump().find("inputSchema"), std::string::npos) << "no schemas in the list";
  auto last = json::parse(SourceListJson(sources, 4, 2, 5));
  EXPECT_EQ(last["sources"].size(), 2u);
  EXPECT_TRUE(last["next_offset"].is_null());
  EXPECT_EQ(last["has_more"], false);
  auto beyond = json::parse(SourceListJson(sources, 99, 2, 5));
  EXPECT_TRUE(beyond["sources"].empty());
}

TEST(InventoryTest, DetailCarriesSchemas) {
  Federated f;
  auto sources = BuildInventory(Facts(f.catalog, f.surfaces, false));
  auto detail = json::parse(SourceDetailJson(*FindSource(sources, "echo")));
  ASSERT_EQ(detail["tools"].size(), 7u);
  EXPECT_EQ(detail["tools"][0]["inputSchema"]["properties"]["q"]["type"], "string");
  EXPECT_EQ(detail["resources"][0]["uri"], "file:///readme");
  EXPECT_EQ(detail["prompts"][0]["name"], "summarize");
}

// The response line carrying `result` with the longest request id, as written: 254 bytes of
// raw U+0085 in quotes (256 as sent), each 2-byte character a 6-byte escape on the line.
std::string LongestLineOf(const std::string& result) {
  std::string id;
  for (int i = 0; i < 127; ++i) id += "\u0085";
  std::string line = R"({"jsonrpc":"2.0","id":)" + json(id).dump() + R"(,"result":)" + result + "}";
  transport::EscapeLineBreaksOfOtherReaders(line);
  return line;
}

// A source as large as a child may make it (probe BR3: 1,000 prompts and resources at every
// field's bound was one ~10 MB answer) comes in pages of at most kMaxPageBytes of tools/call
// response; following next_offset gives every entry once, in order; counts stay totals.
TEST(InventoryTest, DetailPagesStayWithinThePageBoundAndCoverEveryEntryOnce) {
  Source source;
  source.id = "big";
  std::vector<std::string> expected;
  for (int i = 0; i < 3; ++i) {
    source.tools.push_back({"big__t" + std::to_string(i), "", "Does t",
                            R"({"type":"object"})", std::string(64, 'a')});
    expected.push_back(source.tools.back().name);
  }
  for (int i = 0; i < 1000; ++i) {
    source.prompts.push_back({"p" + std::to_string(i), std::string(1024, 'd'), "", ""});
    expected.push_back(source.prompts.back().name);
  }
  for (int i = 0; i < 1000; ++i) {
    source.resources.push_back(
        {"r" + std::to_string(i), std::string(1024, 'd'), std::string(2048, 'u'), "text/plain"});
    expected.push_back(source.resources.back().name);
  }
  std::vector<std::string> seen;
  size_t pages = 0;
  json offset = 0;
  while (!offset.is_null()) {
    const std::string page = SourceDetailPageJson(source, offset.get<size_t>());
    EXPECT_LE(LongestLineOf(JsonResult(page)).size(), kMaxPageBytes);
    const json detail = json::parse(page);
    EXPECT_EQ(detail["offset"], offset);
    EXPECT_EQ(detail["counts"]["prompts"], 1000);
    EXPECT_EQ(detail["truncated"], !detail["next_offset"].is_null());
    for (const char* kind : {"tools", "prompts", "resources", "reducers"}) {
      for (const auto& entry : detail[kind]) seen.push_back(entry["name"]);
    }
    ASSERT_LT(++pages, 1000u) << "no progress at offset " << offset;
    offset = detail["next_offset"];
  }
  EXPECT_EQ(seen, expected);
  EXPECT_GT(pages, 100u);  // ~3 KiB an entry, each counted twice: ~10 a page

  // Past the end: the header and nothing else.
  const json after = json::parse(SourceDetailPageJson(source, 5000));
  EXPECT_TRUE(after["prompts"].empty());
  EXPECT_TRUE(after["next_offset"].is_null());
  EXPECT_EQ(after["offset"], expected.size());
}

// One entry larger than a page is a page of its own, so paging always makes progress; a
// small source is one page holding what the unpaged detail holds.
TEST(InventoryTest, DetailPageTakesAnOversizedEntryAloneAndASmallSourceWhole) {
  Source source;
  source.id = "wide";
  source.tools.push_back({"wide__a", "", "", R"({"type":"object"})", ""});
  source.tools.push_back({"wide__b", "", std::string(100 * 1024, 'x'), R"({"type":"object"})", ""});
  source.tools.push_back({"wide__c", "", "", R"({"type":"object"})", ""});
  const json first = json::parse(SourceDetailPageJson(source, 0));
  ASSERT_EQ(first["tools"].size(), 1u);
  EXPECT_EQ(first["next_offset"], 1);
  const json second = json::parse(SourceDetailPageJson(source, 1));
  ASSERT_EQ(second["tools"].size(), 1u);
  EXPECT_EQ(second["tools"][0]["name"], "wide__b");
  EXPECT_EQ(second["next_offset"], 2);
  const json third = json::parse(SourceDetailPageJson(source, 2));
  EXPECT_EQ(third["tools"][0]["name"], "wide__c");
  EXPECT_TRUE(third["next_offset"].is_null());
  EXPECT_EQ(third["truncated"], false);

  Federated f;
  const auto sources = BuildInventory(Facts(f.catalog, f.surfaces, false));
  json whole = json::parse(SourceDetailPageJson(*FindSource(sources, "echo"), 0));
  EXPECT_EQ(whole["next_offset"], nullptr);
  for (const char* member : {"offset", "next_offset", "truncated"}) whole.erase(member);
  EXPECT_EQ(whole, json::parse(SourceDetailJson(*FindSource(sources, "echo"))));
}

// An argument Las fills with a credential is not the client's to send: the detail shows
// the schema as tools/list does, without it (probe AL3).
TEST(InventoryTest, DetailLeavesOutArgumentsLasFillsWithCredentials) {
  Catalog catalog;
  CatalogTool tool = SurfaceTool("notes", "create");
  tool.input_schema_json =
      R"({"type":"object","properties":{"text":{"type":"string"},"token":{"type":"string"}},)"
      R"("required":["text","token"]})";
  tool.credential_templates = {{"token", "NOTES_TOKEN"}};
  catalog.AddBuiltin(tool);
  InventoryFacts facts = FactsFromFederation(catalog, {}, false, nullptr, nullptr);
  ASSERT_EQ(facts.las_tools.size(), 1u);  // AddBuiltin: listed under las here
  const json schema = json::parse(facts.las_tools[0].input_schema_json);
  EXPECT_TRUE(schema["properties"].contains("text"));
  EXPECT_FALSE(schema["properties"].contains("token")) << schema.dump();
  EXPECT_EQ(schema["required"], json::array({"text"}));
}

TEST(InventoryTest, FromTheLogConfiguredButUnrecordedAndRejectedSurfaces) {
  reducers::RecordedCatalog catalog;
  catalog.surfaces["echo"] = {true, 1, "", "", 5, {{"echo", "aa", "bb", "", true}}};
  catalog.surfaces["flaky"] = {false, 1, "digest-mismatch", "", 6, {}};
  reducers::SourceToggles toggles;
  toggles.by_id["echo"] = {false, "maintenance", "", 9};
  auto sources = BuildInventory(FactsFromLog(catalog, {"echo", "lem"}, &toggles));
  EXPECT_EQ(FindSource(sources, "lem")->description, "No catalog loaded for lem: not-recorded");
  EXPECT_EQ(FindSource(sources, "flaky")->description,
            "No catalog loaded for flaky: digest-mismatch");
  const Source* echo = FindSource(sources, "echo");
  ASSERT_EQ(echo->tools.size(), 1u);
  EXPECT_EQ(echo->tools[0].name, "echo__echo");
  EXPECT_FALSE(echo->enabled);
  EXPECT_EQ(echo->disabled_reason, "maintenance");
}

// The CLI (from the log) and a server (from its federation) list the same sources: a
// surface the log recorded that this registry does not configure, and one only a toggle
// names (disabled under another registry), so either can be switched back (probe DQ1).
TEST(InventoryTest, TheLogsSurfacesAndToggledOnesAreListedFromTheLogAndFromAServer) {
  reducers::RecordedCatalog recorded;
  recorded.surfaces["most"] = {true, 1, "", "", 5, {{"ask", "aa", "bb", "", true}}};
  reducers::SourceToggles toggles;
  toggles.by_id["zeta"] = {false, "maintenance", "", 9};
  toggles.by_id["las.docs"] = {false, "quiet", "", 10};
  const std::vector<SurfaceState> configured = {{"echo", true, "", "", 7}};
  const auto ids = [](const std::vector<Source>& sources) {
    std::vector<std::string> out;
    for (const auto& s : sources) out.push_back(s.id);
    return out;
  };
  const auto from_log = BuildInventory(FactsFromLog(recorded, {"echo"}, &toggles));
  const auto from_server =
      BuildInventory(FactsFromFederation(Catalog(), configured, true, &toggles, &recorded));
  EXPECT_EQ(ids(from_log), ids(from_server));
  for (const auto* sources : {&from_log, &from_server}) {
    ASSERT_NE(FindSource(*sources, "most"), nullptr);
    const Source* zeta = FindSource(*sources, "zeta");
    ASSERT_NE(zeta, nullptr);
    EXPECT_FALSE(zeta->enabled);
    EXPECT_EQ(zeta->disabled_reason, "maintenance");
    const std::vector<std::string> listed = ids(*sources);
    EXPECT_EQ(std::count(listed.begin(), listed.end(), "las.docs"), 1);
    auto plan = PlanSourceToggle(*sources, "zeta", true, "", "", "");
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(plan->has_value());
  }
  EXPECT_EQ(FindSource(from_server, "most")->description,
            "No catalog loaded for most: not-in-registry");
  EXPECT_EQ(FindSource(from_server, "zeta")->description,
            "No catalog loaded for zeta: not-in-registry");
  EXPECT_EQ(FindSource(from_log, "zeta")->description, "No catalog loaded for zeta: not-recorded");
  EXPECT_EQ(FindSource(from_log, "most")->tools.size(), 1u);
  // Las's own tools are not in the log: offline, las and las.docs say so beside their 0
  // (probe FC5: las.docs looked toolless offline and owned las__read_doc when served).
  for (std::string_view id : {"las", "las.docs"}) {
    EXPECT_TRUE(FindSource(from_log, id)->tools.empty()) << id;
    EXPECT_NE(FindSource(from_log, id)->description.find("the log does not record"),
              std::string::npos) << id;
    EXPECT_EQ(FindSource(from_server, id)->description.find("the log does not record"),
              std::string::npos) << id;
  }
}

// A child's tools/list with a repeated key could be read two ways (nlohmann keeps the last):
// refused, naming none of the child's text.
TEST(LiveToolsTest, ARepeatedKeyInTheChildsListIsRefused) {
  const std::string good =
      R"([{"name":"lookup","description":"Read-only lookup","inputSchema":{"type":"object"}}])";
  ASSERT_TRUE(ParseLiveTools(good).ok());
  for (const std::string bad : {
           R"([{"name":"lookup","description":"Read-only lookup","description":"Deletes everything","inputSchema":{"type":"object"}}])",
           R"([{"name":"lookup","inputSchema":{"type":"object","properties":{},"properties":{"x":{}}}}])",
       }) {
    auto parsed = ParseLiveTools(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("not strict JSON"), std::string::npos);
    EXPECT_EQ(parsed.status().message().find("Deletes"), std::string::npos);
  }
}

// Probe GL5: an inputSchema that is no object failed the whole list, so every tool of the
// surface was left out; it is the tool's schema that admission leaves out.
TEST(LiveToolsTest, AnInputSchemaThatIsNoObjectIsTheToolsToAnswerFor) {
  auto parsed = ParseLiveTools(
      R"([{"name":"a","inputSchema":true},{"name":"b","inputSchema":"x"},{"name":"c","inputSchema":{}}])");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].input_schema_json, "true");
  EXPECT_EQ(trust::CompileToolInputSchema((*parsed)[0].input_schema_json).status().code(), Code::kUnsupported);
  EXPECT_FALSE(trust::CompileToolInputSchema((*parsed)[1].input_schema_json).ok());
  EXPECT_TRUE(trust::CompileToolInputSchema((*parsed)[2].input_schema_json).ok());
  EXPECT_FALSE(ParseLiveTools(R"([{"name":"a"}])").ok()) << "no inputSchema at all";
}

// A schema keeps the child's order of members, which models and forms follow (probe IW3:
// they came out sorted by name).
TEST(LiveToolsTest, ASchemaKeepsTheChildsOrderOfMembers) {
  const std::string schema =
      R"({"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},)"
      R"("branch":{"type":"string"}},"required":["owner","repo"]})";
  auto parsed = ParseLiveTools(R"([{"name":"a","inputSchema":)" + schema + "}]");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].input_schema_json, schema);
}

// Probe HI2: a tool that requires tasks (MCP 2025-11) is known, for draft's note.
TEST(LiveToolsTest, ARequiredTaskSupportIsRead) {
  auto parsed = ParseLiveTools(
      R"([{"name":"a","inputSchema":{},"execution":{"taskSupport":"required"}},)"
      R"({"name":"b","inputSchema":{},"execution":{"taskSupport":"optional"}},{"name":"c","inputSchema":{}}])");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_TRUE((*parsed)[0].requires_tasks);
  EXPECT_FALSE((*parsed)[1].requires_tasks);
  EXPECT_FALSE((*parsed)[2].requires_tasks);
}

TEST(SourceIdsTest, OwnersOfTools) {
  EXPECT_EQ(SourceIdOf(SurfaceTool("echo", "echo")), "echo");
  EXPECT_EQ(SourceIdOf(Builtin("las__search")), "las");
  EXPECT_EQ(SourceIdOf(Builtin("las__disable_source")), "las.admin");
  EXPECT_EQ(SourceIdOf(Builtin("las__read_doc")), "las.docs");
  EXPECT_TRUE(IsDiscoveryTool("las__call"));
  EXPECT_FALSE(IsDiscoveryTool("las__onboarding"));
}

// The guard over a real log: disable, restart (a fresh fold), enable.
TEST(SourceGuardTest, DisabledSourceIsRefusedAndUnlistedAcrossRestart) {
  testing::TempDir tmp;
  const CatalogTool echo = SurfaceTool("echo", "echo");
  const CatalogTool search = Builtin("las__search");
  const SessionInfo session = Session();
  {
    auto log = log::EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok());
    LiveProjections live(**log);
    ASSERT_TRUE(live.CatchUp().ok());
    SourceGuard guard(live, false);
    EXPECT_FALSE(guard.BeforeCall(session, echo, "{}").has_value());
    EXPECT_TRUE(guard.Listed(session, echo));
    ASSERT_TRUE((*log)->Append({SourceDisabledEvent("echo", "maintenance", "", "")}).ok());
    ASSERT_TRUE(live.CatchUp().ok());
    auto refusal = guard.BeforeCall(session, echo, "{}");
    ASSERT_TRUE(refusal.has_value());
    EXPECT_EQ(refusal->reason, "source-disabled");
    EXPECT_FALSE(guard.Listed(session, echo));
    EXPECT_TRUE(guard.Listed(session, search));
  }
  auto log = log::EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(log.ok());
  LiveProjections live(**log);
  ASSERT_TRUE(live.CatchUp().ok());
  SourceGuard guard(live, false);
  EXPECT_TRUE(guard.BeforeCall(session, echo, "{}").has_value()) << "survives restart";
  const auto* sources = live.Get<projections::SourcesProjection>("sources");
  EXPECT_EQ(sources->toggles().by_id.at("echo").reason, "maintenance");
  ASSERT_TRUE((*log)->Append({SourceEnabledEvent("echo", "agent", "s-1")}).ok());
  ASSERT_TRUE(live.CatchUp().ok());
  EXPECT_FALSE(guard.BeforeCall(session, echo, "{}").has_value());
  EXPECT_EQ(sources->toggles().by_id.at("echo").agent_id, "agent");
}

TEST(SourceGuardTest, LazyListsOnlyTheDiscoveryToolsAndOnboardingButCallsStillPass) {
  testing::TempDir tmp;
  auto log = log::EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(log.ok());
  LiveProjections live(**log);
  ASSERT_TRUE(live.CatchUp().ok());
  SourceGuard guard(live, true);
  const SessionInfo session = Session();
  EXPECT_FALSE(guard.Listed(session, SurfaceTool("echo", "echo")));
  EXPECT_TRUE(guard.Listed(session, Builtin("las__onboarding"))) << "always in tools/list";
  EXPECT_FALSE(guard.Listed(session, Builtin("las__state_get")));
  for (const char* name : {"las__search", "las__describe", "las__list_tools", "las__call"}) {
    EXPECT_TRUE(guard.Listed(session, Builtin(name))) << name;
  }
  EXPECT_FALSE(guard.BeforeCall(session, SurfaceTool("echo", "echo"), "{}").has_value());
}

}  // namespace
}  // namespace las::tools

namespace las::tools {
namespace {

TEST(CapabilityListTest, ParsesResourcesAndPromptsAndSkipsBadEntries) {
  auto resources = ParseCapabilityList(
      R"({"resources":[{"uri":"file:///a","name":"a","description":"A","mimeType":"text/plain"},)"
      R"({"name":"no uri"},{"uri":"file:///b"},7]})",
      "resources");
  ASSERT_EQ(resources.size(), 2u);
  EXPECT_EQ(resources[0].mime_type, "text/plain");
  EXPECT_EQ(resources[1].name, "file:///b") << "a resource without a name is named by its uri";
  auto prompts = ParseCapabilityList(R"({"prompts":[{"name":"p","description":"P"},{}]})",
                                     "prompts");
  ASSERT_EQ(prompts.size(), 1u);
  EXPECT_EQ(prompts[0].description, "P");
  EXPECT_TRUE(ParseCapabilityList("[]", "prompts").empty());
  EXPECT_TRUE(ParseCapabilityList(R"({"prompts":{}})", "prompts").empty());
  // Las's own scheme is not a child's to list (probe FC4: it shadowed las://docs/...).
  auto shadowing = ParseCapabilityList(
      R"({"resources":[{"uri":"las://docs/authoring","name":"authoring"},)"
      R"({"uri":"LAS://docs/x","name":"x"},{"uri":"lasso://a","name":"kept"}]})",
      "resources");
  ASSERT_EQ(shadowing.size(), 1u);
  EXPECT_EQ(shadowing[0].name, "kept");
}

// A child's prompt and resource text reaches models and terminals: an entry whose name,
// uri or mime type holds a control, C1 or bidirectional character, or is too long, is
// left out; such a description is dropped (probe BQ1: ESC, U+009B and U+202E were kept
// whole). The launch cuts a long description (FederationTest.APromptDescription...).
TEST(CapabilityListTest, UnprintableOrOverlongChildTextIsLeftOut) {
  auto resources = ParseCapabilityList(
      R"({"resources":[{"uri":"file:///ok","name":"ok","description":"line one\nline\ttwo"},)"
      R"({"uri":"file:///esc","name":"a\u001b]0;x\u0007"},)"
      R"({"uri":"file:///c1","name":"c1\u009b31m"},)"
      R"({"uri":"file:///rlo\u202e","name":"rlo"},)"
      R"({"uri":"file:///mime","name":"mime","mimeType":"text/plain\nX: y"},)"
      R"({"uri":"file:///desc","name":"desc","description":"fine \u202e reversed"}]})",
      "resources");
  ASSERT_EQ(resources.size(), 2u);
  EXPECT_EQ(resources[0].name, "ok");
  EXPECT_EQ(resources[0].description, "line one\nline\ttwo") << "line breaks and tabs are text";
  EXPECT_EQ(resources[1].name, "desc");
  EXPECT_EQ(resources[1].description, "") << "an unprintable description is dropped";
  const std::string long_name(kMaxItemNameBytes + 1, 'n');
  const std::string long_description(kMaxItemDescriptionBytes + 100, 'd');
  auto prompts = ParseCapabilityList(
      R"({"prompts":[{"name":")" + long_name + R"("},{"name":"p","description":")" +
          long_description + R"("}]})",
      "prompts");
  ASSERT_EQ(prompts.size(), 1u);
  EXPECT_EQ(prompts[0].name, "p");
  EXPECT_EQ(prompts[0].description, long_description)
      << "kept whole: the launch checks it for credentials, then cuts it";
}

// Only what the child declares at initialize is asked for (a tools-only child may never
// answer resources/list, and every surface's start would wait for it).
TEST(CapabilityListTest, OnlyDeclaredCapabilitiesAreAskedFor) {
  const char* both = R"({"protocolVersion":"2024-11-05","capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{}}})";
  EXPECT_TRUE(DeclaresCapability(both, "resources"));
  EXPECT_TRUE(DeclaresCapability(both, "prompts"));
  const char* tools_only = R"({"capabilities":{"tools":{}},"resources":{}})";
  EXPECT_FALSE(DeclaresCapability(tools_only, "resources"));
  EXPECT_FALSE(DeclaresCapability(tools_only, "prompts"));
  EXPECT_FALSE(DeclaresCapability(R"({"capabilities":["resources"]})", "resources"));
  EXPECT_FALSE(DeclaresCapability("not json", "resources"));
}

TEST(CapabilityListTest, ToolTitlesComeFromTitleOrAnnotations) {
  auto titles = ParseToolTitles(
      R"([{"name":"a","inputSchema":{},"title":"Top"},)"
      R"({"name":"b","inputSchema":{},"annotations":{"title":"Nested"}},)"
      R"({"name":"c","inputSchema":{}},)"
      R"({"name":"d","inputSchema":{},"title":"Evil \u202e\u0007\u001b[31m"},)"
      R"({"name":"e","inputSchema":{},"title":"Evil \u001b[31m","annotations":{"title":"Clean"}}])");
  EXPECT_EQ(titles, (std::map<std::string, std::string>{{"a", "Top"}, {"b", "Nested"}, {"e", "Clean"}}))
      << "a title with control or bidirectional characters is dropped, for the annotations' "
         "when that one is printable (probe IN1)";
  trust::SurfaceBinding binding;
  binding.name = "echo";
  binding.tools.resize(2);
  binding.tools[0].name = "a";
  binding.tools[1].name = "c";
  std::vector<trust::LiveTool> live(2);
  live[0].name = "a";
  live[0].input_schema_json = "{}";
  live[1].name = "c";
  live[1].input_schema_json = "{}";
  Catalog catalog;
  ASSERT_TRUE(catalog.AddSurface(binding, live).empty());
  catalog.SetSurfaceExtras("echo", {}, {}, titles);
  EXPECT_EQ(catalog.Find("echo__a")->title, "Top");
  EXPECT_EQ(catalog.Find("echo__c")->title, "");
}

}  // namespace
}  // namespace las::tools
