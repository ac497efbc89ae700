#include "tools/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sys/stat.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace las::tools {
namespace {

TEST(RegistryTest, DefaultKnowsTheTwelveSeedSurfacesWithTheirPolicies) {
  Registry registry = DefaultRegistry();
  ASSERT_EQ(registry.surfaces.size(), 12u);
  for (const char* name : {"weles", "skarbiec", "tama", "stado", "lem", "echo", "most",
                           "probierz", "byk", "brama", "warsztat", "finance"}) {
    EXPECT_NE(registry.Find(name), nullptr) << name;
  }
  // Find searches by name: the surfaces are kept sorted, the default's too.
  EXPECT_TRUE(std::is_sorted(registry.surfaces.begin(), registry.surfaces.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const char* absent : {"", "a", "bramaa", "zz", "wele"}) EXPECT_EQ(registry.Find(absent), nullptr);
  EXPECT_TRUE(registry.built_in);
  EXPECT_NE(RegistryName(registry).find("the built-in registry"), std::string::npos);
  EXPECT_EQ(registry.Find("skarbiec")->policy, SurfacePolicy::kSkarbiec);
  EXPECT_EQ(registry.Find("finance")->policy, SurfacePolicy::kFinance);
  EXPECT_EQ(registry.Find("tama")->policy, SurfacePolicy::kTama);
  EXPECT_EQ(registry.Find("warsztat")->policy, SurfacePolicy::kWarsztat);
  EXPECT_EQ(registry.Find("weles")->policy, SurfacePolicy::kOrdinary);
}

TEST(RegistryTest, ParsesAFileAndDerivesPolicyFromTheName) {
  auto registry = ParseRegistry(
      R"({"schema_version":1,"surfaces":[{"name":"weles"},{"name":"skarbiec","description":"x"},
          {"name":"everything","description":"reference server"}]})");
  ASSERT_TRUE(registry.ok()) << registry.status().ToString();
  ASSERT_EQ(registry->surfaces.size(), 3u);
  EXPECT_EQ(registry->surfaces[0].name, "everything");
  EXPECT_EQ(registry->Find("everything")->policy, SurfacePolicy::kOrdinary);
  EXPECT_EQ(registry->Find("skarbiec")->policy, SurfacePolicy::kSkarbiec);
  EXPECT_EQ(registry->Find("weles")->description, "browser executor");
  EXPECT_FALSE(registry->built_in);
  EXPECT_EQ(RegistryName(*registry), "the registry");
}

TEST(RegistryTest, RejectsMalformedFilesWithThePath) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"schema_version":1,"surfaces":[{"name":"a__b"}]})", "$.surfaces[0].name"},
           {R"({"schema_version":1,"surfaces":[{"name":"foo_"}]})", "$.surfaces[0].name"},
           {R"({"schema_version":1,"surfaces":[{"name":"weles"},{"name":"weles"}]})", "duplicate"},
           {R"({"schema_version":1,"surfaces":[{"name":"weles","policy":"ordinary"}]})", "unknown field"},
           {R"({"schema_version":1,"surfaces":[],"extra":1})", "$.extra"},
           {R"({"schema_version":1,"schema_version":1,"surfaces":[]})", "duplicate"},
           {R"({"surfaces":[]})", "$.schema_version"},
           {R"({"schema_version":0,"surfaces":[]})", "$.schema_version"},  // not newer: wrong
           {R"([])", "$"},
           {R"({"schema_version":1,"surfaces":[{"name":"las"}]})", "$.surfaces[0].name"},
           // Shown escaped: the message reaches the operator's terminal.
           {R"({"schema_version":1,"surfaces":[{"name":"x\u001b[2Jy"}]})", "'x\\u{001B}[2Jy'"},
       }) {
    auto registry = ParseRegistry(c.text);
    ASSERT_FALSE(registry.ok()) << c.text;
    EXPECT_EQ(registry.status().code(), Code::kInvalidArgument) << c.text;
    EXPECT_NE(registry.status().message().find(c.expect), std::string::npos)
        << c.text << " -> " << registry.status().message();
  }
  EXPECT_EQ(ParseRegistry(R"({"schema_version":2,"surfaces":[]})").status().code(),
            Code::kUnsupported);
  // A newer file's new fields are what the newer version is about: unsupported, not unknown.
  EXPECT_EQ(ParseRegistry(R"({"surfaces":[],"newfield":1,"schema_version":2})").status().code(),
            Code::kUnsupported);
}

// Loading never blocks (a FIFO is refused at once) and every error names the file.
TEST(RegistryTest, LoadRefusesWhatIsNotARegularFileAndNamesThePath) {
  testing::TempDir tmp;
  const std::string fifo = tmp.Sub("registry.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = LoadRegistry(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_NE(from_fifo.status().message().find("not a regular file"), std::string::npos)
      << from_fifo.status().ToString();
  EXPECT_FALSE(LoadRegistry(tmp.path()).ok());
  EXPECT_EQ(LoadRegistry(tmp.Sub("missing.json")).status().code(), Code::kNotFound);
  const std::string bad = tmp.Sub("bad.json");
  std::ofstream(bad) << R"({"schema_version":1,"schema_version":1,"surfaces":[]})";
  auto duplicate = LoadRegistry(bad);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.status().message().find(bad + ": duplicate"), std::string::npos)
      << duplicate.status().ToString();
}

TEST(RegistryTest, OnlyAndSkipOnlySubtract) {
  const std::vector<std::string> eligible = {"echo", "lem", "weles"};
  EXPECT_EQ(FilterEligible(eligible, std::nullopt, std::nullopt), eligible);
  EXPECT_EQ(FilterEligible(eligible, "weles, lem", std::nullopt),
            (std::vector<std::string>{"lem", "weles"}));
  EXPECT_EQ(FilterEligible(eligible, std::nullopt, "lem"),
            (std::vector<std::string>{"echo", "weles"}));
  // Naming a surface that is not eligible never adds it.
  EXPECT_EQ(FilterEligible(eligible, "finance,echo", std::nullopt),
            (std::vector<std::string>{"echo"}));
  EXPECT_TRUE(FilterEligible(eligible, "finance", std::nullopt).empty());
  EXPECT_EQ(FilterEligible(eligible, "", ""), eligible);
  EXPECT_EQ(FilterEligible(eligible, " \t", std::nullopt), eligible) << "blank: unset";
  EXPECT_TRUE(FilterEligible(eligible, ",", std::nullopt).empty()) << "set, naming nothing";
  EXPECT_TRUE(FilterEligible(eligible, " , ,", std::nullopt).empty());
  EXPECT_EQ(FilterEligible(eligible, "echo", "echo"), std::vector<std::string>{});
  EXPECT_EQ(FilterEligible(eligible, "\techo\t, lem\n", std::nullopt),
            (std::vector<std::string>{"echo", "lem"}))
      << "tabs and line ends are trimmed like spaces";
  // What the federation names on stderr: list names that match nothing.
  EXPECT_EQ(UnmatchedNames(eligible, "ECHO, lem,,nosuch"),
            (std::vector<std::string>{"ECHO", "nosuch"}));
  EXPECT_TRUE(UnmatchedNames(eligible, "echo,").empty());
  // What a bridge asks before it says a list it ignores was set (probe EH3).
  for (const char* blank : {"", " ", "\t", "\n", "\r\n", "\v", "\f"}) {
    EXPECT_TRUE(IsBlankList(blank)) << "[" << blank << "]";
  }
  EXPECT_FALSE(IsBlankList(","));
  EXPECT_FALSE(IsBlankList("\necho"));
}

}  // namespace
}  // namespace las::tools
