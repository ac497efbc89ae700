// Tama and Warsztat allowlists: shipped defaults, the local file, and refusals.
#include "trust/surface_allowlist.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/trust/trust_test_util.h"

namespace las::trust {
namespace {

TEST(SurfaceAllowlist, ShippedDefaultsAreReadOnlyForTamaAndProposalsForWarsztat) {
  const SurfaceAllowlists lists = DefaultSurfaceAllowlists();
  EXPECT_TRUE(CheckAllowlisted("tama", lists.tama, "list_hooks").ok());
  EXPECT_TRUE(CheckAllowlisted("tama", lists.tama, "inspect_hook").ok());
  EXPECT_TRUE(CheckAllowlisted("warsztat", lists.warsztat, "create_proposal").ok());
  EXPECT_TRUE(CheckAllowlisted("warsztat", lists.warsztat, "list_proposals").ok());
}

TEST(SurfaceAllowlist, ATamaToolOutsideTheAllowlistIsRefused) {
  const SurfaceAllowlists lists = DefaultSurfaceAllowlists();
  const Verdict v = CheckAllowlisted("tama", lists.tama, "install_hook");
  EXPECT_EQ(v.reason(), Reason::kPolicyToolNotAllowed);
  EXPECT_NE(v.detail().find("install_hook"), std::string::npos);
  EXPECT_EQ(CheckAllowlisted("warsztat", lists.warsztat, "apply_proposal").reason(),
            Reason::kPolicyToolNotAllowed);
  EXPECT_EQ(CheckAllowlisted("tama", lists.tama, "LIST_HOOKS").reason(),
            Reason::kPolicyToolNotAllowed)
      << "names match exactly";
}

TEST(SurfaceAllowlist, TheFileReplacesTheListsItNamesAndKeepsTheOthers) {
  auto lists = ParseSurfaceAllowlists(R"({"schema_version":1,"tama":["list_hooks"]})");
  ASSERT_TRUE(lists.ok()) << lists.verdict().ToString();
  EXPECT_EQ(lists->tama, ToolAllowlist{"list_hooks"});
  EXPECT_EQ(lists->warsztat, DefaultSurfaceAllowlists().warsztat);
  auto none = ParseSurfaceAllowlists(R"({"schema_version":1,"warsztat":[]})");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->warsztat.empty());
}

TEST(SurfaceAllowlist, AMalformedFileIsRefused) {
  for (const char* bad : {
           R"({"tama":["list_hooks"]})",
           R"({"schema_version":2})",
           R"({"schema_version":1,"tama":"list_hooks"})",
           R"({"schema_version":1,"tama":["list hooks"]})",
           R"({"schema_version":1,"tama":["a","a"]})",
           R"({"schema_version":1,"skarbiec":["redeem"]})",
           R"({"schema_version":1,"tama":[],"tama":["install_hook"]})",
       }) {
    EXPECT_EQ(ParseSurfaceAllowlists(bad).verdict().reason(), Reason::kPolicyInvalid) << bad;
  }
}

TEST(SurfaceAllowlist, TheFileMustBeTheOwnersOnly) {
  las::testing::TempDir dir;
  const std::string path = dir.Sub("surface-policy.json");
  testing::WriteFile(path, R"({"schema_version":1})", 0664);
  EXPECT_EQ(LoadSurfaceAllowlists(path).verdict().reason(), Reason::kFilePermissions);
  testing::WriteFile(path, R"({"schema_version":1})", 0600);
  EXPECT_TRUE(LoadSurfaceAllowlists(path).ok());
}

}  // namespace
}  // namespace las::trust
