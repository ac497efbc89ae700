// The MCP reference server (@modelcontextprotocol/server-everything, pinned) as a real
// child, admitted through a release made with the operator tooling — `las release keygen`,
// `las release draft`, `las release sign` — and called through `las serve` by the SDK.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_fixture.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

TEST(ServerEverythingTest, DraftedSignedAdmittedAndCalledThroughLas) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir tmp;
  // keygen, draft and sign must each succeed (the helper EXPECTs every command).
  const testing::EverythingRelease release = testing::ReleaseServerEverything(tmp);
  ASSERT_FALSE(HasFailure());
  auto las = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    return testing::RunCommand(args, release.env);
  };

  auto run = testing::RunServe(
      tmp.Sub("log"), release.registry_path, testing::EnvObject(release.env),
      {{{"op", "listTools"}},
       {{"op", "callTool"}, {"name", "everything__echo"}, {"arguments", {{"message", "hi"}}}},
       {{"op", "callTool"}, {"name", "everything__get-sum"}, {"arguments", {{"a", 2}, {"b", 40}}}},
       {{"op", "callTool"}, {"name", "everything__get-sum"}, {"arguments", {{"a", "two"}}}},
       {{"op", "parallelCalls"}, {"name", "everything__echo"}, {"arguments", {{"message", "p"}}},
        {"count", 8}},
       {{"op", "callToolWithProgress"},
        {"name", "everything__trigger-long-running-operation"},
        {"arguments", {{"duration", 0.6}, {"steps", 3}}}},
       // Through las__call, the inner call reports its progress under the client's token.
       {{"op", "callToolWithProgress"},
        {"name", "las__call"},
        {"arguments", {{"name", "everything__trigger-long-running-operation"},
                       {"arguments", {{"duration", 0.6}, {"steps", 3}}}}}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.connect["ok"], true);
  const std::set<std::string> names = testing::ListedNames(run.steps[0]);
  EXPECT_TRUE(names.count("everything__echo"));
  EXPECT_TRUE(names.count("everything__get-sum"));
  EXPECT_EQ(run.steps[1]["result"]["content"][0]["text"], "Echo: hi");
  EXPECT_NE(run.steps[2]["result"]["content"][0]["text"].get<std::string>().find("42"),
            std::string::npos)
      << run.steps[2].dump();
  EXPECT_EQ(run.steps[3]["error"]["code"], -32602) << "refused by the signed schema";
  ASSERT_EQ(run.steps[4]["result"].size(), 8u);
  // The child's progress reaches the client under the client's own token, numbers only.
  // (The SDK drops a notification that arrives with the answer, directly too: the last
  // step's may be missing.)
  for (const size_t step : {5, 6}) {
    const json& progress = run.steps[step]["result"]["progress"];
    ASSERT_GE(progress.size(), 2u) << run.steps[step].dump();
    ASSERT_LE(progress.size(), 3u) << run.steps[step].dump();
    for (size_t i = 0; i < progress.size(); ++i) {
      EXPECT_EQ(progress[i], (json{{"progress", i + 1}, {"total", 3}})) << progress.dump();
    }
    EXPECT_NE(run.steps[step]["result"]["result"]["content"][0]["text"].get<std::string>().find(
                  "completed"),
              std::string::npos)
        << run.steps[step].dump();
  }

  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"),
                                     "--summary", "--kind", "ToolCallCompleted"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto lines = testing::Lines(replay.out);
  EXPECT_EQ(lines.size(), 13u) << "12 completed calls (las__call's inner one) and the summary";

  // A restart (las list federates again): the release is accepted again, the watermark
  // moved exactly once, and an auditor re-verifies both recorded signatures offline.
  auto list = las({"list", "--log", tmp.Sub("log"), "--registry", release.registry_path});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("everything__echo"), std::string::npos);
  auto audit = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"),
                                    "--summary", "--kind", "WatermarkAdvanced"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  auto audit_lines = testing::Lines(audit.out);
  ASSERT_EQ(audit_lines.size(), 2u) << "one WatermarkAdvanced, then the summary";
  EXPECT_EQ(json::parse(audit_lines[0])["payload"]["to_sequence"], 1);
  EXPECT_EQ(json::parse(audit_lines[1])["summary"]["releases_verified"], 2);
}

}  // namespace
}  // namespace las
