// The MCP reference server (@modelcontextprotocol/server-everything, pinned) as a real
// child, admitted through a release made with the operator tooling — `las release keygen`,
// `las release draft`, `las release sign` — and called through `las serve` by the SDK.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/e2e/sdk_driver.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

TEST(ServerEverythingTest, DraftedSignedAdmittedAndCalledThroughLas) {
  if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir tmp;
  ::chmod(tmp.path().c_str(), 0700);
  const std::string workspace =
      std::filesystem::canonical(std::string(LAS_SOURCE_DIR) + "/tests/e2e").string();
  const std::vector<std::string> env = {
      "LAS_WORKSPACE=" + workspace,
      "LAS_NODE=" + testing::NodeExecutable(),
      "LAS_RELEASE_MANIFEST=" + tmp.Sub("release.json"),
      "LAS_RELEASE_SIGNATURE=" + tmp.Sub("release.sig"),
      "LAS_TRUST_STORE=" + tmp.Sub("trust.json"),
      "LAS_RELEASE_WATERMARK=" + tmp.Sub("watermark.json"),
  };
  auto las = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    return testing::RunCommand(args, env);
  };
  auto keygen = las({"release", "keygen", "--out-dir", tmp.Sub("keys"), "--trust-store",
                     tmp.Sub("trust.json")});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  auto draft = las({"release", "draft", "--surface", "everything", "--cwd", workspace, "--",
                    testing::NodeExecutable(), testing::ServerEverythingScript(), "stdio"});
  ASSERT_EQ(draft.exit_code, 0) << draft.err;
  auto sign = las({"release", "sign", "--secret-key", tmp.Sub("keys/release.key"), "--sequence",
                   "1", "--expires-in", "1d"});
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  std::ofstream(tmp.Sub("registry.json"))
      << R"({"schema_version":1,"surfaces":[{"name":"everything"}]})";

  json env_object = json::object();
  for (const auto& entry : env) {
    env_object[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  }
  auto run = testing::RunSdkClient(
      {{"command", LAS_EXECUTABLE},
       {"args", {"serve", "--log", tmp.Sub("log"), "--registry", tmp.Sub("registry.json")}},
       {"env", env_object},
       {"steps",
        {{{"op", "listTools"}},
         {{"op", "callTool"}, {"name", "everything__echo"}, {"arguments", {{"message", "hi"}}}},
         {{"op", "callTool"}, {"name", "everything__get-sum"}, {"arguments", {{"a", 2}, {"b", 40}}}},
         {{"op", "callTool"}, {"name", "everything__get-sum"}, {"arguments", {{"a", "two"}}}},
         {{"op", "parallelCalls"}, {"name", "everything__echo"}, {"arguments", {{"message", "p"}}},
          {"count", 8}}}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.connect["ok"], true);
  std::set<std::string> names;
  for (const auto& tool : run.steps[0]["result"]["tools"]) names.insert(tool["name"]);
  EXPECT_TRUE(names.count("everything__echo"));
  EXPECT_TRUE(names.count("everything__get-sum"));
  EXPECT_EQ(run.steps[1]["result"]["content"][0]["text"], "Echo: hi");
  EXPECT_NE(run.steps[2]["result"]["content"][0]["text"].get<std::string>().find("42"),
            std::string::npos)
      << run.steps[2].dump();
  EXPECT_EQ(run.steps[3]["error"]["code"], -32602) << "refused by the signed schema";
  ASSERT_EQ(run.steps[4]["result"].size(), 8u);

  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", tmp.Sub("log"),
                                     "--summary", "--kind", "ToolCallCompleted"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto lines = testing::Lines(replay.out);
  EXPECT_EQ(lines.size(), 11u) << "10 completed calls and the summary";

  // A restart (las list federates again): the release is accepted again, the watermark
  // moved exactly once, and an auditor re-verifies both recorded signatures offline.
  auto list = las({"list", "--log", tmp.Sub("log"), "--registry", tmp.Sub("registry.json")});
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
