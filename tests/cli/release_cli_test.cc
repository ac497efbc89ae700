// `las release keygen | draft | sign | verify` as an operator runs them: the real
// executable, real key files, a real python child (a copy of stand_in.py).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/cli/release_cli_fixture.h"
#include "trust/digest.h"
#include "trust/launch_policy.h"
#include "trust/manifest.h"
#include "trust/manifest_writer.h"
#include "trust/signature_file.h"
#include "trust/tool_binding_check.h"
#include "trust/trust_store.h"

namespace las {
namespace {

using testing::Las;
using testing::ModeOf;
using testing::ReleaseScratch;
using testing::Slurp;
using testing::Spit;

// Each file's bytes and mode, to show that a refused command changed none of them.
using Snapshot = std::map<std::string, std::pair<std::string, unsigned>>;
Snapshot Snap(const std::vector<std::string>& paths) {
  Snapshot snapshot;
  for (const std::string& path : paths) snapshot[path] = {Slurp(path), ModeOf(path)};
  return snapshot;
}

// The names in `dir`, to show that a refused command left no temporary file behind.
std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

trust::Manifest ReadManifest(const std::string& path) {
  Result<trust::Manifest> parsed = trust::ParseManifest(Slurp(path));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : trust::Manifest{};
}

// stand_in.py's own tools/list for `surface`, asked of python directly (not through Las).
std::vector<trust::LiveTool> StandInTools(const std::string& script, const std::string& surface) {
  const std::string code =
      "import json,sys,runpy; m=runpy.run_path(sys.argv[1]); "
      "print(json.dumps([{'name':n,'description':d,'inputSchema':s} "
      "for n,(d,s,_) in m['SURFACES'][sys.argv[2]].items()]))";
  testing::CommandResult listed = testing::RunCommand({"/usr/bin/python3", "-c", code, script, surface});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  std::vector<trust::LiveTool> tools;
  for (const auto& t : nlohmann::json::parse(listed.out)) {
    tools.push_back({t["name"], t["inputSchema"].dump(), t["description"].get<std::string>()});
  }
  return tools;
}

TEST(ReleaseKeygenTest, WritesAPrivateSecretKeyAndRefusesToOverwrite) {
  ReleaseScratch r;
  auto made = r.Keygen();
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(ModeOf(r.secret_key()), 0600u);
  EXPECT_EQ(ModeOf(r.public_key()), 0644u);
  EXPECT_EQ(ModeOf(r.trust_store()), 0600u);
  auto store = trust::LoadTrustStore(r.trust_store());
  ASSERT_TRUE(store.ok()) << store.verdict().ToString();
  ASSERT_EQ(store->keys.size(), 1u);
  EXPECT_NE(made.out.find("key id       " + store->selected_key_id), std::string::npos) << made.out;
  // The secret never appears in what is printed.
  const std::string secret = Slurp(r.secret_key());
  EXPECT_EQ(made.out.find(secret.substr(secret.rfind(' ') + 1, 64)), std::string::npos);

  const std::string before = Slurp(r.secret_key());
  auto again = r.Keygen();
  EXPECT_EQ(again.exit_code, 10) << again.err;
  EXPECT_NE(again.err.find("refusing to overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(Slurp(r.secret_key()), before) << "the existing key is untouched";
  EXPECT_EQ(trust::LoadTrustStore(r.trust_store())->keys.size(), 1u) << "nor the trust store";

  // Rotation: a second key elsewhere joins the same trust store and becomes selected.
  auto rotated = Las({"release", "keygen", "--secret-key", r.Sub("keys/new.key"), "--public-key",
                      r.Sub("keys/new.pub"), "--trust-store", r.trust_store()});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  auto extended = trust::LoadTrustStore(r.trust_store());
  ASSERT_TRUE(extended.ok());
  EXPECT_EQ(extended->keys.size(), 2u);
  EXPECT_NE(extended->selected_key_id, store->selected_key_id);
  EXPECT_EQ(ModeOf(r.trust_store()), 0600u);
}

// A trust store that cannot be written once the keys are: the keys were left behind, and
// the rerun refused them as a conflict (probe CI4). An immutable directory (chattr +i)
// refuses even root.
TEST(ReleaseKeygenTest, AStoreThatCannotBeWrittenLeavesNoKeyPair) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  const std::string state = std::filesystem::path(r.trust_store()).parent_path();
  if (testing::RunCommand({"/usr/bin/chattr", "+i", state}).exit_code != 0) {
    GTEST_SKIP() << "chattr +i is not available on this file system";
  }
  const std::string keys = r.Sub("keys-2");
  auto refused = Las({"release", "keygen", "--out-dir", keys, "--trust-store", r.trust_store()});
  testing::RunCommand({"/usr/bin/chattr", "-i", state});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("the new key pair was removed"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(keys + "/release.key"));
  EXPECT_FALSE(std::filesystem::exists(keys + "/release.pub"));
  auto again = Las({"release", "keygen", "--out-dir", keys, "--trust-store", r.trust_store()});
  EXPECT_EQ(again.exit_code, 0) << "the rerun works: " << again.err;
}

TEST(ReleaseKeygenTest, NeedsPathsAndWillNotExtendAnInsecureTrustStore) {
  ReleaseScratch r;
  EXPECT_EQ(Las({"release", "keygen"}).exit_code, 2);
  Spit(r.trust_store(), "{}");
  ::chmod(r.trust_store().c_str(), 0644);
  auto refused = r.Keygen();
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("file-permissions"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(r.secret_key())) << "nothing written when the store is bad";
  const std::string fresh = r.Sub("fresh/keys");
  auto refused_fresh = Las({"release", "keygen", "--out-dir", fresh, "--trust-store", r.trust_store()});
  EXPECT_NE(refused_fresh.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(r.Sub("fresh"))) << "no directory made on refusal";
}

TEST(ReleaseDraftTest, WritesAManifestEntryWithTheDigestsOfTheChild) {
  ReleaseScratch r;
  auto drafted = r.Draft("echo");
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("tools     3: content_stats, dashboard, echo"), std::string::npos)
      << drafted.out;
  trust::Manifest m = ReadManifest(r.manifest());
  ASSERT_EQ(m.surfaces.size(), 1u);
  const trust::SurfaceBinding& echo = m.surfaces[0];
  EXPECT_EQ(echo.name, "echo");
  EXPECT_EQ(echo.command, "/usr/bin/python3");
  EXPECT_EQ(echo.cwd, r.workspace());
  EXPECT_EQ(echo.argv, (std::vector<std::string>{"/usr/bin/python3", r.script(), "echo"}));
  EXPECT_TRUE(echo.env.empty());
  EXPECT_EQ(echo.binary_sha256, trust::Sha256(Slurp("/usr/bin/python3")));
  ASSERT_TRUE(echo.code.has_value());
  EXPECT_EQ(echo.code->path, r.script());
  EXPECT_EQ(echo.code->sha256, trust::Sha256(Slurp(r.script())));
  // The signed tool digests are exactly what the tool check will compare against.
  const std::vector<trust::LiveTool> live = StandInTools(r.script(), "echo");
  ASSERT_EQ(live.size(), 3u);
  for (const trust::LiveTool& tool : live) {
    const trust::ToolBinding* bound = echo.FindTool(tool.name);
    ASSERT_NE(bound, nullptr) << tool.name;
    EXPECT_EQ(bound->input_schema_sha256, *trust::InputSchemaDigest(tool.input_schema_json)) << tool.name;
    EXPECT_EQ(bound->description_sha256, *trust::DescriptionDigest(tool.description)) << tool.name;
  }
  EXPECT_TRUE(trust::CheckToolList(echo, live).ok());

  // A second surface is added; re-drafting one replaces it and keeps its credential
  // templates (dropping one silently would make that argument model-suppliable).
  ASSERT_EQ(r.Draft("most").exit_code, 0);
  m = ReadManifest(r.manifest());
  ASSERT_EQ(m.surfaces.size(), 2u);
  m.surfaces[0].tools[0].credential_templates = {{"channel", "echo.channel"}};
  Spit(r.manifest(), trust::SerializeManifest(m));
  auto redrafted = r.Draft("echo");
  ASSERT_EQ(redrafted.exit_code, 0) << redrafted.err;
  EXPECT_NE(redrafted.out.find("kept the credential templates"), std::string::npos) << redrafted.out;
  trust::Manifest after = ReadManifest(r.manifest());
  ASSERT_EQ(after.surfaces.size(), 2u);
  EXPECT_EQ(after.surfaces[0].tools[0].credential_templates, m.surfaces[0].tools[0].credential_templates);
}

TEST(ReleaseDraftTest, RefusesWhatTheLaunchRulesRefuse) {
  ReleaseScratch r;
  // A script outside the workspace.
  auto outside = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3",
                      std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py", "echo"});
  EXPECT_EQ(outside.exit_code, 8) << outside.err;
  EXPECT_NE(outside.err.find("workspace-escape"), std::string::npos) << outside.err;
  EXPECT_EQ(outside.err.find("surface echo: workspace-escape: surface echo:"), std::string::npos)
      << "the surface said once (probe BA3): " << outside.err;
  // A relative command.
  auto relative = Las({"release", "draft", "--surface", "echo", "--workspace", r.workspace(),
                       "--manifest", r.manifest(), "--", "python3", r.script(), "echo"});
  EXPECT_EQ(relative.exit_code, 2) << relative.err;
  EXPECT_NE(relative.err.find("absolute"), std::string::npos) << relative.err;
  // A script whose name is not UTF-8: said so, not blamed on the manifest (probe AU5).
  const std::string not_utf8 = r.workspace() + "/st\xff" "and.py";
  std::filesystem::copy_file(r.script(), not_utf8);
  auto unnamed = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", not_utf8,
                      "echo"});
  EXPECT_EQ(unnamed.exit_code, 2) << unnamed.err;
  EXPECT_NE(unnamed.err.find("argument 1 "), std::string::npos) << unnamed.err;
  EXPECT_NE(unnamed.err.find("is not valid UTF-8"), std::string::npos) << unnamed.err;
  EXPECT_EQ(unnamed.err.find("manifest"), std::string::npos) << unnamed.err;
  // A bad surface name.
  EXPECT_EQ(r.Draft("Bad__Name").exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(r.manifest())) << "nothing written on refusal";
}

// The script an interpreter runs is pinned wherever it stands after options that load no
// code; an option that would run something else is refused, since no file could pin it.
// A venv's Python runs its site-packages (.pth files) at every start, unpinned: draft says
// so (probe CI1); /usr/bin/python3 itself gets no such note.
TEST(ReleaseDraftTest, AVirtualEnvironmentsInterpreterGetsANoteOnItsSitePackages) {
  ReleaseScratch r;
  const std::string venv = r.workspace() + "/venv";
  auto made = testing::RunCommand({"/usr/bin/python3", "-m", "venv", "--copies", "--without-pip", venv});
  if (made.exit_code != 0) GTEST_SKIP() << "python3 -m venv is not available here: " << made.err;
  auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", venv + "/bin/python3",
                      r.script(), "echo"});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("note      the interpreter belongs to the virtual environment " + venv),
            std::string::npos)
      << drafted.out;
  auto plain = r.Draft();
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("virtual environment"), std::string::npos) << plain.out;
}

// A child that stops at start: Las keeps its stderr to itself, so the refusal says how to
// see why, and, with no --env given, that the child got none of the operator's variables
// (probe IW5: a server that needs its API token exited so).
TEST(ReleaseDraftTest, AChildThatStopsAtStartGetsAHintAboutStderrAndEnv) {
  ReleaseScratch r;
  auto draft = [&](std::vector<std::string> env) {
    std::vector<std::string> args = {"release", "draft", "--surface", "echo", "--cwd", r.workspace(),
                                     "--workspace", r.workspace(), "--manifest", r.manifest()};
    for (const std::string& name : env) args.insert(args.end(), {"--env", name});
    args.insert(args.end(), {"--", "/usr/bin/python3", r.script(), "no-such-surface"});
    return Las(args);
  };
  const auto bare = draft({});
  EXPECT_NE(bare.exit_code, 0);
  EXPECT_NE(bare.err.find("start-failed: "), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("run the command by hand to see why it stopped; the child gets no "
                          "variable of yours that no --env NAME names"),
            std::string::npos)
      << bare.err;
  const auto with_env = draft({"HOME"});
  EXPECT_NE(with_env.err.find("run the command by hand to see why it stopped)"), std::string::npos)
      << with_env.err;
  EXPECT_EQ(with_env.err.find("--env NAME"), std::string::npos) << with_env.err;
  // A variable named but not set here is named (probe IX4).
  const auto unset = draft({"HOME", "LAS_TEST_NEVER_SET_TOKEN"});
  EXPECT_NE(unset.err.find("; --env LAS_TEST_NEVER_SET_TOKEN not set here: the child ran without it)"),
            std::string::npos)
      << unset.err;
}

TEST(ReleaseDraftTest, PinsTheScriptAfterInterpreterOptionsAndRefusesOptionsThatRunOtherCode) {
  ReleaseScratch r;
  auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", "-u",
                      r.script(), "echo"});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  trust::Manifest m = ReadManifest(r.manifest());
  ASSERT_EQ(m.surfaces.size(), 1u);
  ASSERT_TRUE(m.surfaces[0].code.has_value()) << "python3 -u SCRIPT pins SCRIPT";
  EXPECT_EQ(m.surfaces[0].code->path, r.script());
  EXPECT_EQ(m.surfaces[0].code->sha256, trust::Sha256(Slurp(r.script())));

  auto module = Las({"release", "draft", "--surface", "most", "--cwd", r.workspace(), "--workspace",
                     r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", "-m",
                     "http.server"});
  EXPECT_EQ(module.exit_code, 8) << module.err;
  EXPECT_NE(module.err.find("code-not-pinned"), std::string::npos) << module.err;
  EXPECT_EQ(ReadManifest(r.manifest()).surfaces.size(), 1u) << "nothing added on refusal";
}

// A python child (at <workspace>/<file>) whose tools/list result is the python expression
// `listed` (SCHEMA holds `schema`).
std::string ListingChild(ReleaseScratch& r, const std::string& file, const std::string& listed,
                         const std::string& schema = "{}") {
  const std::string child = r.workspace() + "/" + file;
  Spit(child, R"(import json, sys
SCHEMA = ')" + schema + R"('
for raw in sys.stdin:
    msg = json.loads(raw)
    rid = msg.get("id")
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "one", "version": "1"}}
    elif msg.get("method") == "tools/list":
        result = )" + listed + R"(
    elif rid is not None:
        result = {}
    else:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
)");
  return child;
}

// A python child (at <workspace>/one.py) that lists one tool, `name`, with `schema`.
std::string OneToolChild(ReleaseScratch& r, const std::string& schema, const std::string& name = "pick") {
  return ListingChild(
      r, "one.py",
      R"({"tools": [{"name": ")" + name + R"(", "description": "Pick.", "inputSchema": json.loads(SCHEMA)}]})",
      schema);
}

// A schema integer a double does not hold exactly: the digest (JCS) reads it as its
// nearest double, so it would bind the neighbouring schema as well. Draft refuses to
// pin it (unsupported, exit 6), naming where, not the number; nothing is written.
TEST(ReleaseDraftTest, RefusesASchemaIntegerTheDigestCannotBind) {
  ReleaseScratch r;
  const std::string child = OneToolChild(r, R"({"type":"object","properties":{"e":{"enum":[10000000000000001]}}})");
  auto drafted = Las({"release", "draft", "--surface", "big", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", child});
  EXPECT_EQ(drafted.exit_code, 6) << drafted.err;
  EXPECT_NE(drafted.err.find("tool \"pick\": input schema: #/properties/e/enum/0"), std::string::npos)
      << drafted.err;
  EXPECT_EQ(drafted.err.find("10000000000000001"), std::string::npos) << drafted.err;
  EXPECT_FALSE(std::filesystem::exists(r.manifest())) << "nothing written on refusal";
}

// A child that lists a credential value set here (LAS_CREDENTIAL_*) as a tool's name or
// inside its schema would put it in the release, which every client is shown and the log
// records (probe BE5): draft refuses, naming the variable, never the value; nothing is
// written. The same child drafts when the variable is not set.
TEST(ReleaseDraftTest, RefusesAChildThatListsACredentialValueSetHere) {
  const std::string token = "ghp_R4nd0mT0kenV4lue1234567890abcdefAB";
  const std::vector<std::string> env = {"LAS_CREDENTIAL_SHORT_TOKEN=" + token};
  const std::string plain = R"({"type":"object"})";
  const std::string encoded = R"({"type":"object","description":"Z2hwX1I0bmQwbVQwa2VuVjRsdWUxMjM0NTY3ODkwYWJjZGVmQUI="})";
  for (const auto& [schema, name] : std::vector<std::pair<std::string, std::string>>{
           {plain, token}, {encoded, "pick"}}) {
    ReleaseScratch r;
    const std::string child = OneToolChild(r, schema, name);
    const std::vector<std::string> args = {"release", "draft", "--surface", "leaky", "--cwd",
                                           r.workspace(), "--workspace", r.workspace(),
                                           "--manifest", r.manifest(), "--",
                                           "/usr/bin/python3", child};
    auto refused = Las(args, env);
    EXPECT_EQ(refused.exit_code, 8) << refused.err;
    EXPECT_NE(refused.err.find("surface leaky: the child's tool #1 carries the value of "
                               "LAS_CREDENTIAL_SHORT_TOKEN"),
              std::string::npos)
        << refused.err;
    EXPECT_EQ(refused.err.find("R4nd0m"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out.find("R4nd0m"), std::string::npos) << refused.out;
    EXPECT_FALSE(std::filesystem::exists(r.manifest())) << "nothing written on refusal";
    auto drafted = Las(args);
    EXPECT_EQ(drafted.exit_code, 0) << drafted.err;
  }
}

// A command argument that holds a credential value set here (LAS_CREDENTIAL_*) would put
// it in the release, which the log records (probe JY1: draft refused it in tools only, and
// `las serve` now refuses such a release whole); and `--env NAME=VALUE` never quotes the
// value (probe JY2). Nothing is written either time.
TEST(ReleaseDraftTest, RefusesACredentialValueInTheCommandOrAnEnvValue) {
  const std::string token = "ghp_R4nd0mT0kenV4lue1234567890abcdefAB";
  ReleaseScratch r;
  const std::string child = OneToolChild(r, R"({"type":"object"})", "pick");
  auto in_argv = Las({"release", "draft", "--surface", "leaky", "--cwd", r.workspace(),
                      "--workspace", r.workspace(), "--manifest", r.manifest(), "--",
                      "/usr/bin/python3", child, "--token=" + token},
                     {"LAS_CREDENTIAL_SHORT_TOKEN=" + token});
  EXPECT_EQ(in_argv.exit_code, 8) << in_argv.err;
  EXPECT_NE(in_argv.err.find("surface leaky: the command's argument #2 holds the value of "
                             "LAS_CREDENTIAL_SHORT_TOKEN"),
            std::string::npos)
      << in_argv.err;
  auto env_value = Las({"release", "draft", "--surface", "leaky", "--cwd", r.workspace(),
                        "--workspace", r.workspace(), "--manifest", r.manifest(), "--env",
                        "SERVICE_API_TOKEN=" + token, "--", "/usr/bin/python3", child});
  EXPECT_EQ(env_value.exit_code, 2) << env_value.err;
  EXPECT_NE(env_value.err.find("\"SERVICE_API_TOKEN=…\" (a name with a value"), std::string::npos)
      << env_value.err;
  // `--env "$TOKEN"` for `--env TOKEN`: a token is a valid name (probe KB1).
  auto env_as_value = Las({"release", "draft", "--surface", "leaky", "--cwd", r.workspace(),
                           "--workspace", r.workspace(), "--manifest", r.manifest(), "--env",
                           token, "--", "/usr/bin/python3", child},
                          {"SERVICE_API_TOKEN=" + token});
  EXPECT_EQ(env_as_value.exit_code, 2) << env_as_value.err;
  EXPECT_NE(env_as_value.err.find("an --env name is the value of SERVICE_API_TOKEN here"),
            std::string::npos)
      << env_as_value.err;
  for (const auto* run : {&in_argv, &env_value, &env_as_value}) {
    EXPECT_EQ(run->err.find("R4nd0m"), std::string::npos) << run->err;
    EXPECT_EQ(run->out.find("R4nd0m"), std::string::npos) << run->out;
  }
  EXPECT_FALSE(std::filesystem::exists(r.manifest())) << "nothing written on refusal";
}

// Probe HA1/HA2: a name common clients refuse is signed with a note saying so and the way
// around; a name no manifest can bind refuses the surface naming the tool, escaped.
TEST(ReleaseDraftTest, NamesToolsWhoseNamesClientsRefuseOrNoManifestBinds) {
  ReleaseScratch r;
  const std::string schema = R"({"type":"object"})";
  const std::string dotted = OneToolChild(r, schema, "files.read");
  auto drafted = Las({"release", "draft", "--surface", "fs", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", dotted});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("note      listed under names that clients holding tool names to "
                             "^[a-zA-Z0-9_-]{1,64}$ (Claude's, OpenAI's) refuse, with a \".\" or over "
                             "64 bytes: fs__files.read; "),
            std::string::npos)
      << drafted.out;

  const std::string slashed = OneToolChild(r, schema, "files/read");
  auto refused = Las({"release", "draft", "--surface", "fs2", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", slashed});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("surface fs2: the child lists tool \"files/read\", a name no manifest can bind"),
            std::string::npos)
      << refused.err;
}

// Probe GW4: a --manifest that is a symbolic link was refused only at the write, after the
// child had run. Now before.
TEST(ReleaseDraftTest, AManifestPathThatIsASymlinkIsRefusedBeforeTheChildRuns) {
  ReleaseScratch r;
  const std::string marker = r.workspace() + "/ran";
  const std::string child = r.workspace() + "/marks.py";
  Spit(child, "open(" + nlohmann::json(marker).dump() + ", 'w').close()\n");
  const std::string target = OneToolChild(r, R"({"type":"object"})");
  ASSERT_EQ(Las({"release", "draft", "--surface", "one", "--cwd", r.workspace(), "--workspace",
                 r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", target})
                .exit_code,
            0);
  const std::string link = r.manifest() + ".link";
  std::filesystem::create_symlink(r.manifest(), link);
  auto refused = Las({"release", "draft", "--surface", "marks", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", link, "--", "/usr/bin/python3", child});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("is a symbolic link; give the path of the file it names"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the child ran before the refusal";
}

// Probe HA3: a child whose tools/list pages loop was refused as a bare malformed_response.
TEST(ReleaseDraftTest, ARefusedListingSaysWhatWasWrong) {
  ReleaseScratch r;
  const std::string child = ListingChild(r, "loop.py", R"({"tools": [], "nextCursor": "again"})");
  auto drafted = Las({"release", "draft", "--surface", "loop", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", child});
  EXPECT_EQ(drafted.exit_code, 9) << drafted.err;
  EXPECT_NE(drafted.err.find("tools/list failed (malformed_response: page 2: nextCursor repeats an "
                             "earlier page's (a loop))"),
            std::string::npos)
      << drafted.err;
}

// Probe KG5: a `format` Las does not check (uri, email) passed anything, and nothing said so.
TEST(ReleaseDraftTest, NotesTheFormatsLasDoesNotCheck) {
  ReleaseScratch r;
  const std::string child = OneToolChild(
      r, R"({"type":"object","properties":{"link":{"type":"string","format":"uri"},)"
         R"("to":{"type":"string","format":"email"},"at":{"type":"string","format":"date-time"},)"
         R"("from":{"type":"string","format":"email"}}})");
  auto drafted = Las({"release", "draft", "--surface", "forms", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", child});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("note      tool pick: its inputSchema's format \"email\", \"uri\" is not "
                             "checked by Las (only date, time and date-time are): a value it "
                             "refuses reaches the tool"),
            std::string::npos)
      << drafted.out;
}

// A schema Las cannot check arguments against (here 2020-12's unevaluatedItems) is signed all
// the same, but the operator is told at draft time that `las serve` will leave the tool out.
TEST(ReleaseDraftTest, WarnsOfASchemaServeWillLeaveOut) {
  ReleaseScratch r;
  const std::string child = OneToolChild(
      r, R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)"
         R"("properties":{"pair":{"type":"array","unevaluatedItems":false}}})");
  auto drafted = Las({"release", "draft", "--surface", "pairs", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--", "/usr/bin/python3", child});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("note      tool pick will be left out by las serve (schema-unsupported): "
                             "its inputSchema cannot be checked: "),
            std::string::npos)
      << drafted.out;
  EXPECT_NE(drafted.out.find("unevaluatedItems"), std::string::npos) << drafted.out;
  const trust::Manifest manifest = ReadManifest(r.manifest());
  ASSERT_EQ(manifest.surfaces.size(), 1u);
  ASSERT_EQ(manifest.surfaces[0].tools.size(), 1u);
  EXPECT_EQ(manifest.surfaces[0].tools[0].name, "pick");
}

TEST(ReleaseSignVerifyTest, SignThenVerifyRoundTrip) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  EXPECT_EQ(r.Sign({}).exit_code, 2) << "one of --sequence / --bump is required";
  auto signed_ = r.Sign({"--sequence", "5", "--expires-in", "12h"});
  ASSERT_EQ(signed_.exit_code, 0) << signed_.err;
  EXPECT_NE(signed_.out.find("sequence  5 (was 1)"), std::string::npos) << signed_.out;
  EXPECT_NE(signed_.out.find("expires   "), std::string::npos);
  EXPECT_NE(signed_.out.find("(in 12h 0m)"), std::string::npos) << signed_.out;
  EXPECT_EQ(ModeOf(r.signature()), 0644u);
  EXPECT_EQ(ReadManifest(r.manifest()).sequence, 5u);
  auto parsed = trust::ParseSignatureFile(Slurp(r.signature()));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->key_id, trust::LoadTrustStore(r.trust_store())->selected_key_id);

  auto verified = r.Verify();
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("OK: sequence 5"), std::string::npos) << verified.out;

  ASSERT_EQ(r.Sign({"--bump"}).exit_code, 0);
  EXPECT_EQ(ReadManifest(r.manifest()).sequence, 6u);
  EXPECT_EQ(r.Verify({"--watermark", r.watermark()}).exit_code, 0);
}

// sign's trust-store check warned only when the store loaded and selected another key; one
// that serve refuses (open to others, missing) went unsaid (probe CI8).
TEST(ReleaseSignVerifyTest, SignWarnsOfATrustStoreServeWouldRefuse) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  auto fine = r.Sign({"--bump", "--trust-store", r.trust_store()});
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(fine.out.find("warning"), std::string::npos) << fine.out;

  ::chmod(r.trust_store().c_str(), 0644);
  auto loose = r.Sign({"--bump", "--trust-store", r.trust_store()});
  EXPECT_EQ(loose.exit_code, 0) << loose.err;
  EXPECT_NE(loose.out.find("warning   the trust store " + r.trust_store() +
                           " could not be loaded (file-permissions"),
            std::string::npos)
      << loose.out;
  EXPECT_EQ(r.Verify().exit_code, 1) << "verify refuses the same store";

  auto missing = r.Sign({"--bump", "--trust-store", r.Sub("no-store.json")});
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_NE(missing.out.find("could not be loaded (file-missing"), std::string::npos) << missing.out;

  // No store at all: the key was checked against nothing, and that is said (probe FR5).
  auto none = testing::Las({"release", "sign", "--manifest", r.manifest(), "--secret-key",
                            r.secret_key(), "--out", r.signature(), "--bump"},
                           {"LAS_TRUST_STORE="});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("warning   no trust store (--trust-store, or LAS_TRUST_STORE): the key "
                          "was not checked"),
            std::string::npos)
      << none.out;
}

// Probe FZ3/FZ4: sign signed a manifest others could write with no word, keygen made a key
// and trust store in a directory another user could empty, and draft pinned code from a
// workspace anyone could change: each is said now.
TEST(ReleaseSignVerifyTest, FilesOthersMayChangeAreWarnedOfWhereTheyAreMadeOrSigned) {
  ReleaseScratch r;
  ASSERT_EQ(::chmod(r.keys().c_str(), 0777), 0);
  auto made = r.Keygen();
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("warning      the release key " + r.secret_key() +
                          " is reached through a directory others may write (" + r.keys() +
                          ", mode 0777)"),
            std::string::npos)
      << made.out;
  ASSERT_EQ(::chmod(r.workspace().c_str(), 0777), 0);
  ASSERT_EQ(::chmod(r.script().c_str(), 0666), 0);  // probe GA3: the code itself, whatever its directory
  auto drafted = r.Draft();
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("the code " + r.script() + " may be written by others (mode 0666)"),
            std::string::npos)
      << drafted.out;
  EXPECT_NE(drafted.out.find("the workspace " + r.workspace() +
                             " may be written by others (mode 0777), who can then change the "
                             "code a release drafted from it pins"),
            std::string::npos)
      << drafted.out;
  ASSERT_EQ(::chmod(r.manifest().c_str(), 0666), 0);
  auto signed_ = r.Sign({"--bump"});
  ASSERT_EQ(signed_.exit_code, 0) << signed_.err;
  EXPECT_NE(signed_.out.find("warning   the manifest " + r.manifest() +
                             " may be written by others (mode 0666), who can then change what "
                             "you sign"),
            std::string::npos)
      << signed_.out;

  ASSERT_EQ(::chmod(r.keys().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(r.manifest().c_str(), 0644), 0);
  auto clean = r.Sign({"--bump"});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.out.find("may be written by"), std::string::npos) << clean.out;
  EXPECT_EQ(clean.out.find("others may write"), std::string::npos) << clean.out;
}

TEST(ReleaseSignVerifyTest, SignRefusesALooseSecretKeyAndLongExpiries) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  EXPECT_EQ(r.Sign({"--bump", "--expires-in", "400d"}).exit_code, 2);
  // Too many digits is too long, not a malformed duration (probe IZ4).
  const auto huge = r.Sign({"--bump", "--expires-in", "99999999999999999999d"});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.err.find("is longer than 366d"), std::string::npos) << huge.err;
  EXPECT_EQ(r.Sign({"--bump", "--expires-in", "soon"}).exit_code, 2);
  ::chmod(r.secret_key().c_str(), 0640);
  auto loose = r.Sign({"--bump"});
  EXPECT_EQ(loose.exit_code, 8) << loose.err;
  EXPECT_NE(loose.err.find("chmod 600"), std::string::npos) << loose.err;
  EXPECT_FALSE(std::filesystem::exists(r.signature()));
}

TEST(ReleaseSignVerifyTest, SignGivenThePublicKeySaysSoWhateverItsMode) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  for (const mode_t mode : {mode_t{0644}, mode_t{0600}}) {
    ASSERT_EQ(::chmod(r.public_key().c_str(), mode), 0);
    auto sign = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key",
                     r.public_key(), "--out", r.signature(), "--bump"});
    EXPECT_EQ(sign.exit_code, 2) << sign.err;
    EXPECT_NE(sign.err.find(r.public_key() + " is a public key file"), std::string::npos)
        << sign.err;
    EXPECT_EQ(sign.err.find("chmod"), std::string::npos) << "not the fix: " << sign.err;
    EXPECT_FALSE(std::filesystem::exists(r.signature()));
  }
}

// What keygen reports names the operator's paths: shown escaped, one line each.
TEST(ReleaseKeygenTest, PathsInTheReportAreEscaped) {
  ReleaseScratch r;
  const std::string odd = r.Sub("keys\n\x1b[31mRED");
  auto made = Las({"release", "keygen", "--out-dir", odd});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(made.out.find('\x1b'), std::string::npos) << made.out;
  EXPECT_NE(made.out.find("keys\\u{000A}\\u{001B}[31mRED"), std::string::npos) << made.out;
}

// A key this user may not open is refused access (exit 8), not an I/O failure (exit 9).
TEST(ReleaseSignVerifyTest, AKeyThisUserMayNotOpenIsDenied) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  std::vector<std::string> sign = {LAS_EXECUTABLE, "release", "sign", "--manifest", r.manifest(),
                                   "--secret-key", r.secret_key(), "--out", r.Sub("other.sig"), "--bump"};
  if (::geteuid() == 0) {
    // root opens everything: another user meets root's 0600 key.
    for (const std::string& dir : {r.Sub(""), r.keys(), r.Sub("release")}) ::chmod(dir.c_str(), 0777);
  } else {
    ::chmod(r.secret_key().c_str(), 0);
  }
  auto refused = testing::RunCommand(testing::AsUnprivilegedUser(sign));
  EXPECT_EQ(refused.exit_code, 8) << refused.err;
  EXPECT_NE(refused.err.find("file-access-denied"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("secret key"), std::string::npos) << refused.err;
}

TEST(ReleaseSignVerifyTest, VerifyRejectsATamperedManifestWithExitOne) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  std::string text = Slurp(r.manifest());
  text.replace(text.find("\"sequence\": 1"), 13, "\"sequence\": 9");
  Spit(r.manifest(), text);
  auto tampered = r.Verify();
  EXPECT_EQ(tampered.exit_code, 1);
  EXPECT_NE(tampered.out.find("bad-signature"), std::string::npos) << tampered.out;
  EXPECT_NE(tampered.err.find("FAILED"), std::string::npos) << tampered.err;
}

TEST(ReleaseSignVerifyTest, VerifyRejectsA63ByteSignatureBeforeAnyCrypto) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  std::string line = Slurp(r.signature());
  line = line.substr(0, line.size() - 3) + "\n";  // drop one byte (two hex digits)
  Spit(r.signature(), line);
  auto short_sig = r.Verify();
  EXPECT_EQ(short_sig.exit_code, 1);
  EXPECT_NE(short_sig.out.find("signature-length: signature is 63 bytes"), std::string::npos)
      << short_sig.out;
}

TEST(ReleaseSignVerifyTest, VerifyTellsOperationalErrorsFromFailures) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  auto missing = r.Verify();  // no manifest, no signature yet
  EXPECT_EQ(missing.exit_code, 4) << missing.out << missing.err;
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1", "--expires-in", "1d"}).exit_code, 0);
  auto later = r.Verify({"--at", "2100-01-01T00:00:00Z"});
  EXPECT_EQ(later.exit_code, 1);
  EXPECT_NE(later.out.find("expired"), std::string::npos) << later.out;
  // At the instant itself it has expired, and is said to have (probe AZ4: "in 0s").
  const std::string expires_at = nlohmann::json::parse(Slurp(r.manifest()))["expires_at"];
  auto at_expiry = r.Verify({"--at", expires_at});
  EXPECT_EQ(at_expiry.exit_code, 1);
  EXPECT_NE(at_expiry.out.find("expired at " + expires_at + " (0s ago)"), std::string::npos)
      << at_expiry.out;
  // An empty instant is a usage error, not "now": `--at "$WHEN"` with WHEN unset (BW4).
  auto empty = r.Verify({"--at", ""});
  EXPECT_EQ(empty.exit_code, 2) << empty.out << empty.err;
  EXPECT_NE(empty.err.find("--at \"\": an empty instant"), std::string::npos) << empty.err;
  EXPECT_EQ(empty.out, "");
}

// A manifest this user may not read is "could not verify" (exit 8), not "must not be
// admitted" (exit 1): scripts tell a bad release from an unreadable one by the code.
TEST(ReleaseSignVerifyTest, AManifestThisUserMayNotReadIsDeniedNotFailed) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  for (const std::string& dir : {r.Sub(""), r.keys(), r.Sub("release")}) ::chmod(dir.c_str(), 0777);
  ::chmod(r.signature().c_str(), 0644);
  ::chmod(r.trust_store().c_str(), 0644);
  ::chmod(r.manifest().c_str(), 0);
  auto denied = testing::RunCommand(testing::AsUnprivilegedUser(
      {LAS_EXECUTABLE, "release", "verify", "--manifest", r.manifest(), "--signature",
       r.signature(), "--trust-store", r.trust_store()}));
  EXPECT_EQ(denied.exit_code, 8) << denied.out << denied.err;
  EXPECT_NE(denied.out.find("file-access-denied"), std::string::npos) << denied.out;
  EXPECT_NE(denied.err.find("could not verify"), std::string::npos) << denied.err;
  EXPECT_EQ(denied.err.find("must not be admitted"), std::string::npos) << denied.err;
}

// Keygen's outputs are three files: two of them at one path lost the new secret key (the
// trust store was renamed over it) and still exited 0.
TEST(ReleaseKeygenTest, RefusesTwoOutputsThatAreOneFile) {
  ReleaseScratch r;
  const std::string a = r.Sub("keys/a");
  const std::string b = r.Sub("keys/b");
  std::filesystem::create_directory_symlink(r.keys(), r.Sub("keys-link"));
  for (const std::vector<std::string>& paths : {
           std::vector<std::string>{"--secret-key", a, "--public-key", b, "--trust-store", a},
           {"--secret-key", a, "--public-key", b, "--trust-store", b},
           {"--secret-key", a, "--public-key", r.Sub("keys/./a")},
           {"--secret-key", a, "--public-key", b, "--trust-store", r.Sub("keys-link/a")},
           {"--out-dir", r.keys(), "--trust-store", r.secret_key()},
       }) {
    std::vector<std::string> args = {"release", "keygen"};
    args.insert(args.end(), paths.begin(), paths.end());
    auto refused = Las(args);
    EXPECT_EQ(refused.exit_code, 2) << ::testing::PrintToString(paths) << ": " << refused.err;
    EXPECT_NE(refused.err.find("same file"), std::string::npos) << refused.err;
    EXPECT_EQ(testing::Lines(refused.err).size(), 1u) << refused.err;
    EXPECT_EQ(Listing(r.keys()), std::vector<std::string>{}) << "nothing created";
    // Each case starts empty, also when one did create files.
    for (const std::string& name : Listing(r.keys())) std::filesystem::remove(r.keys() + "/" + name);
  }
}

// `--out` names the file sign writes: it replaced the secret key or the trust store with
// a signature line (exit 0) and destroyed the manifest (exit 9).
TEST(ReleaseSignVerifyTest, SignRefusesAnOutThatIsAnotherReleaseFile) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  Spit(r.watermark(), "{}");
  const std::vector<std::string> env = {"LAS_TRUST_STORE=" + r.trust_store(),
                                        "LAS_RELEASE_WATERMARK=" + r.watermark()};
  const std::vector<std::string> all = {r.manifest(), r.signature(), r.secret_key(), r.trust_store(),
                                        r.watermark()};
  const Snapshot before = Snap(all);
  std::filesystem::create_symlink(r.secret_key(), r.Sub("key-link"));
  std::filesystem::create_hard_link(r.trust_store(), r.Sub("store-link"));
  for (const std::string& out : {r.secret_key(), r.trust_store(), r.watermark(), r.manifest(),
                                 r.Sub("release/../release/manifest.json"), r.Sub("key-link"),
                                 r.Sub("store-link")}) {
    auto refused = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                        "--out", out, "--bump"},
                       env);
    EXPECT_EQ(refused.exit_code, 2) << out << ": " << refused.err;
    EXPECT_NE(refused.err.find("same file"), std::string::npos) << refused.err;
    EXPECT_EQ(testing::Lines(refused.err).size(), 1u) << refused.err;
    EXPECT_TRUE(Snap(all) == before) << out << ": a release file changed";
  }
  EXPECT_EQ(r.Verify().exit_code, 0) << "the signed release is intact";
}

// `sign --manifest OTHER` without --out wrote OTHER's signature over LAS_RELEASE_SIGNATURE,
// breaking the served release (probe CI2); draft says when it changed the served manifest
// in place (probe CI3).
TEST(ReleaseSignVerifyTest, AnotherManifestsSignatureNeverReplacesTheServedOne) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  const std::vector<std::string> served = {"LAS_RELEASE_MANIFEST=" + r.manifest(),
                                           "LAS_RELEASE_SIGNATURE=" + r.signature(),
                                           "LAS_TRUST_STORE=" + r.trust_store()};
  const std::string other = r.Sub("other.json");
  std::filesystem::copy_file(r.manifest(), other);
  const Snapshot before = Snap({r.manifest(), r.signature()});
  auto refused = Las({"release", "sign", "--manifest", other, "--secret-key", r.secret_key(),
                      "--bump"},
                     served);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("give --out FILE"), std::string::npos) << refused.err;
  EXPECT_TRUE(Snap({r.manifest(), r.signature()}) == before) << "the served pair is untouched";
  EXPECT_EQ(r.Verify().exit_code, 0);
  auto own = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                  "--bump"},
                 served);
  EXPECT_EQ(own.exit_code, 0) << "the served manifest's own signature is its default: " << own.err;

  auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(),
                      "--workspace", r.workspace(), "--", "/usr/bin/python3", r.script(), "echo"},
                     served);
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_NE(drafted.out.find("note      LAS_RELEASE_MANIFEST no longer matches its signature"),
            std::string::npos)
      << drafted.out;
  auto elsewhere = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(),
                        "--workspace", r.workspace(), "--manifest", other, "--", "/usr/bin/python3",
                        r.script(), "echo"},
                       served);
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_EQ(elsewhere.out.find("no longer matches"), std::string::npos) << elsewhere.out;
  EXPECT_NE(elsewhere.out.find("--out SIGNATURE"), std::string::npos)
      << "its next command names the output: " << elsewhere.out;
}

// A served manifest drafted twice before its first signing: no signature it "no longer
// matches", and the first release is still number 1, not --bump's 2 (probe FT6).
TEST(ReleaseDraftTest, AManifestNeverSignedIsNotSaidToDifferFromItsSignatureNorBumped) {
  ReleaseScratch r;
  const std::vector<std::string> served = {"LAS_RELEASE_MANIFEST=" + r.manifest(),
                                           "LAS_RELEASE_SIGNATURE=" + r.signature()};
  for (int draft = 0; draft < 2; ++draft) {
    auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(),
                        "--workspace", r.workspace(), "--", "/usr/bin/python3", r.script(), "echo"},
                       served);
    ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
    EXPECT_EQ(drafted.out.find("no longer matches"), std::string::npos) << drafted.out;
    EXPECT_NE(drafted.out.find("sign it: las release sign --secret-key KEY --sequence 1\n"),
              std::string::npos)
        << draft << ": " << drafted.out;
  }
  // A directory where the signature belongs is no signature; an empty path is none: the
  // next line names --out (probe FU4).
  std::filesystem::create_directories(r.Sub("sigdir"));
  auto beside_directory = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(),
                               "--workspace", r.workspace(), "--", "/usr/bin/python3", r.script(), "echo"},
                              {"LAS_RELEASE_MANIFEST=" + r.manifest(), "LAS_RELEASE_SIGNATURE=" + r.Sub("sigdir")});
  EXPECT_EQ(beside_directory.out.find("no longer matches"), std::string::npos) << beside_directory.out;
  EXPECT_NE(beside_directory.out.find("--sequence 1 --out SIGNATURE\n"), std::string::npos)
      << "sign refuses to write a directory (probe FV1): " << beside_directory.out;
  for (const std::string& unusable : {std::string(), std::string("relative.sig"),
                                      r.Sub("no-such-dir/manifest.sig"), r.signature() + "/"}) {
    auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                        r.workspace(), "--", "/usr/bin/python3", r.script(), "echo"},
                       {"LAS_RELEASE_MANIFEST=" + r.manifest(), "LAS_RELEASE_SIGNATURE=" + unusable});
    EXPECT_NE(drafted.out.find("--sequence 1 --out SIGNATURE\n"), std::string::npos)
        << "'" << unusable << "' (probe FW1): " << drafted.out;
  }
}

// A relative path in a release variable: verify and serve refuse it, and draft and sign
// wrote beside the current directory (probe CI6). Draft's printed next command quotes a
// path a shell would split or run (probe CI7).
TEST(ReleaseDraftTest, RelativeVariablesAreRefusedAndTheNextCommandIsQuoted) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  auto draft = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                    r.workspace(), "--", "/usr/bin/python3", r.script(), "echo"},
                   {"LAS_RELEASE_MANIFEST=release/manifest.json"});
  EXPECT_EQ(draft.exit_code, 2) << draft.err;
  EXPECT_NE(draft.err.find("is a relative path; it must be absolute"), std::string::npos)
      << draft.err;
  auto sign = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                   "--sequence", "1"},
                  {"LAS_RELEASE_SIGNATURE=manifest.sig"});
  EXPECT_EQ(sign.exit_code, 2) << sign.err;

  const std::string odd = r.Sub("a dir $(touch pwned)") + "/manifest.json";
  auto quoted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                     r.workspace(), "--manifest", odd, "--", "/usr/bin/python3", r.script(), "echo"});
  ASSERT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_NE(quoted.out.find("--manifest '" + odd + "'"), std::string::npos) << quoted.out;
}

// A sign that fails must leave the previous manifest and signature a valid pair: it used
// to rewrite the manifest (new sequence and expiry) before failing on the signature.
TEST(ReleaseSignVerifyTest, ASignThatFailsLeavesTheSignedPairIntact) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "1"}).exit_code, 0);
  const Snapshot before = Snap({r.manifest(), r.signature()});
  const std::vector<std::string> listed = Listing(r.Sub("release"));
  struct Case {
    std::string out;
    int exit_code;
  };
  std::vector<Case> cases = {{r.Sub("missing/manifest.sig"), 4}, {r.Sub("release"), 2}};
  if (::geteuid() != 0) {  // root writes into any directory
    std::filesystem::create_directory(r.Sub("locked"));
    ::chmod(r.Sub("locked").c_str(), 0500);
    cases.push_back({r.Sub("locked/manifest.sig"), 8});
  }
  for (const Case& c : cases) {
    auto failed = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                       "--out", c.out, "--bump"});
    EXPECT_EQ(failed.exit_code, c.exit_code) << c.out << ": " << failed.err;
    EXPECT_EQ(testing::Lines(failed.err).size(), 1u) << failed.err;
    EXPECT_TRUE(Snap({r.manifest(), r.signature()}) == before) << c.out << ": the signed pair changed";
    EXPECT_EQ(Listing(r.Sub("release")), listed) << "no temporary file left behind";
  }
  EXPECT_EQ(r.Verify().exit_code, 0) << "the signed release is intact";
}

// The manifest reader takes sequences up to 2^53-1 (exact in every JSON reader); the flag
// said and took up to 2^64-1.
// A manifest given through a symbolic link is refused: writing it back would replace the
// link with a file and leave the file it names unsigned and unchanged.
TEST(ReleaseSignVerifyTest, SignAndDraftRefuseAManifestThatIsASymbolicLink) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  const std::string link = r.Sub("release/link.json");
  std::filesystem::create_symlink(r.manifest(), link);
  const std::string before = Slurp(r.manifest());
  auto sign = Las({"release", "sign", "--manifest", link, "--secret-key", r.secret_key(), "--out",
                   r.signature(), "--bump"});
  EXPECT_EQ(sign.exit_code, 2) << sign.err;
  EXPECT_NE(sign.err.find("is a symbolic link"), std::string::npos) << sign.err;
  auto draft = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                    r.workspace(), "--manifest", link, "--", "/usr/bin/python3", r.script(), "echo"});
  EXPECT_EQ(draft.exit_code, 2) << draft.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link is still a link";
  EXPECT_EQ(Slurp(r.manifest()), before);
  EXPECT_FALSE(std::filesystem::exists(r.signature()));
}

// A FIFO where the signature goes is refused, not replaced by a regular file (probe EW3:
// exit 0 and the FIFO gone; as root, `--out /dev/null` would have replaced /dev/null).
TEST(ReleaseSignVerifyTest, SignRefusesToReplaceAFifo) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  const std::string fifo = r.Sub("release/release.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string before = Slurp(r.manifest());
  auto sign = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                   "--out", fifo, "--bump"});
  EXPECT_EQ(sign.exit_code, 2) << sign.err;
  EXPECT_NE(sign.err.find("is not a regular file"), std::string::npos) << sign.err;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo)) << "the FIFO is still a FIFO";
  EXPECT_EQ(Slurp(r.manifest()), before) << "nothing replaced";
}

// A draft does not sign what no launch would admit: a code file over the launch bound.
TEST(ReleaseSignVerifyTest, DraftRefusesACodeFileOverTheLaunchBound) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  std::filesystem::resize_file(r.script(), trust::kMaxLaunchedFileBytes + 1);  // sparse
  auto draft = r.Draft();
  EXPECT_EQ(draft.exit_code, 2) << draft.err;
  EXPECT_NE(draft.err.find("may have at most 1073741824"), std::string::npos) << draft.err;
  EXPECT_FALSE(std::filesystem::exists(r.manifest()));
}

TEST(ReleaseSignVerifyTest, SequenceFlagTakesWhatTheManifestHolds) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  auto above = r.Sign({"--sequence", "9007199254740992"});
  EXPECT_EQ(above.exit_code, 2) << above.err;
  EXPECT_NE(above.err.find("from 1 to 9007199254740991"), std::string::npos) << above.err;
  // Far above the last, and at the very top, the key's room is said to be used up (probe
  // GD2: a manifest edited to the top took --bump there without a word).
  // A --bump is measured from the watermark, which an edited manifest cannot move (probe
  // GE5); a --sequence the operator gives, such as a date, is theirs (probe GE6).
  auto date = r.Sign({"--sequence", "20261207"});
  ASSERT_EQ(date.exit_code, 0) << date.err;
  EXPECT_EQ(date.out.find("warning   sequence"), std::string::npos) << date.out;
  const std::string key_id = trust::LoadTrustStore(r.trust_store())->selected_key_id;
  Spit(r.watermark(), "{\"schema_version\": 1, \"keys\": {\"" + key_id +
                          "\": {\"sequence\": 3, \"manifest_sha256\": \"" + std::string(64, '0') +
                          "\"}}}");
  ::chmod(r.watermark().c_str(), 0600);
  auto jump = r.Sign({"--bump", "--watermark", r.watermark()});
  ASSERT_EQ(jump.exit_code, 0) << jump.err;
  EXPECT_NE(jump.out.find("warning   sequence 20261208 is 20261205 above the watermark (3): once "
                          "served, no release below it can be"),
            std::string::npos)
      << jump.out;
  auto top = r.Sign({"--sequence", "9007199254740991"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(ReadManifest(r.manifest()).sequence, 9007199254740991u);
  EXPECT_NE(top.out.find("warning   sequence 9007199254740991 is the highest a release may have"),
            std::string::npos)
      << top.out;
  auto bumped = r.Sign({"--bump"});
  EXPECT_EQ(bumped.exit_code, 2) << bumped.err;
  EXPECT_NE(bumped.err.find("9007199254740991"), std::string::npos) << bumped.err;
  EXPECT_EQ(r.Verify().exit_code, 0);
}

// `--` ends the flags whatever comes before it: a repeatable --env takes one name per use,
// so the child's own dash arguments after `--` are its own (probe T4).
TEST(ReleaseDraftTest, EnvLastBeforeTheDoubleDashLeavesTheChildsArgumentsAlone) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  auto drafted = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                      r.workspace(), "--manifest", r.manifest(), "--env", "HOME", "--env", "LANG", "--",
                      "/usr/bin/python3", "-u", r.script(), "echo"});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  const trust::Manifest manifest = ReadManifest(r.manifest());
  ASSERT_EQ(manifest.surfaces.size(), 1u);
  EXPECT_EQ(manifest.surfaces[0].env, (std::vector<std::string>{"HOME", "LANG"}));
  EXPECT_EQ(manifest.surfaces[0].argv, (std::vector<std::string>{"/usr/bin/python3", "-u", r.script(), "echo"}));
  // Two names after one --env: the second is not taken as a name.
  auto two = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                  r.workspace(), "--manifest", r.manifest(), "--env", "HOME", "LANG", "--",
                  "/usr/bin/python3", r.script(), "echo"});
  EXPECT_EQ(two.exit_code, 2) << two.err;
  // The error names the stray word, not the child's command line (probe U5).
  EXPECT_EQ(two.err, "las release draft: invalid_argument: 'LANG' came before '--': the child's "
                     "command goes after '--', and a flag takes one value (--env A --env B) "
                     "(see `las release draft --help`)\n");
  // Without `--`, the child's own flag is read as las's; the error says where the command goes.
  auto undivided = Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                        r.workspace(), "--manifest", r.manifest(), "/usr/bin/python3", "-u", r.script()});
  EXPECT_EQ(undivided.exit_code, 2) << undivided.err;
  EXPECT_EQ(undivided.err, "las release draft: invalid_argument: the child's command goes after '--', or "
                           "las reads its flags: The following argument was not expected: -u "
                           "(see `las release draft --help`)\n");
}

// Sign refuses a sequence the watermark already passed for its key: the release it would
// replace is admissible, the new one would not be (probe T6).
TEST(ReleaseSignVerifyTest, SignRefusesASequenceTheWatermarkPassed) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign({"--sequence", "4"}).exit_code, 0);
  const std::string key_id = trust::LoadTrustStore(r.trust_store())->selected_key_id;
  const std::string admitted = trust::Sha256Hex(trust::Sha256(Slurp(r.manifest())));
  Spit(r.watermark(), "{\"schema_version\": 1, \"keys\": {\"" + key_id +
                          "\": {\"sequence\": 4, \"manifest_sha256\": \"" + admitted + "\"}}}");
  ::chmod(r.watermark().c_str(), 0600);
  const Snapshot before = Snap({r.manifest(), r.signature(), r.watermark()});

  // Below it (rollback); at it with other bytes (conflict: another expiry).
  for (const auto& [sequence, expires_in] : {std::pair{"3", "30d"}, std::pair{"4", "12h"}}) {
    auto refused = r.Sign({"--sequence", sequence, "--expires-in", expires_in, "--watermark", r.watermark()});
    EXPECT_EQ(refused.exit_code, 10) << sequence << ": " << refused.out << refused.err;
    EXPECT_EQ(refused.err.rfind("las release sign: conflict: ", 0), 0u) << refused.err;
    EXPECT_EQ(refused.err.find("conflict: conflict"), std::string::npos) << refused.err;  // BA3
    EXPECT_NE(refused.err.find("watermark " + r.watermark()), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("--sequence 5 or higher"), std::string::npos) << refused.err;
    EXPECT_EQ(Snap({r.manifest(), r.signature(), r.watermark()}), before) << "nothing written";
  }
  // The variable names it as well as the flag.
  auto by_variable = Las({"release", "sign", "--manifest", r.manifest(), "--secret-key", r.secret_key(),
                          "--out", r.signature(), "--sequence", "2"},
                         {"LAS_RELEASE_WATERMARK=" + r.watermark()});
  EXPECT_EQ(by_variable.exit_code, 10) << by_variable.err;
  EXPECT_NE(by_variable.err.find("rollback"), std::string::npos) << by_variable.err;
  EXPECT_EQ(Snap({r.manifest(), r.signature(), r.watermark()}), before);

  auto above = r.Sign({"--sequence", "5", "--watermark", r.watermark()});
  ASSERT_EQ(above.exit_code, 0) << above.err;
  EXPECT_EQ(r.Verify({"--watermark", r.watermark()}).exit_code, 0);

  // A watermark that cannot be read is said, not taken for "no entries".
  ::chmod(r.watermark().c_str(), 0644);
  auto unchecked = r.Sign({"--bump", "--watermark", r.watermark()});
  EXPECT_EQ(unchecked.exit_code, 0) << unchecked.err;
  EXPECT_NE(unchecked.out.find("warning   the watermark"), std::string::npos) << unchecked.out;
}

// draft's `next` line proposes a sequence the watermark admits for the selected key (probe
// FI2: a new manifest file got --sequence 1 with the key at 4, which sign then refused).
TEST(ReleaseDraftTest, TheNextCommandProposesASequenceTheWatermarkAdmits) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  const std::string key_id = trust::LoadTrustStore(r.trust_store())->selected_key_id;
  Spit(r.watermark(), "{\"schema_version\": 1, \"keys\": {\"" + key_id +
                          "\": {\"sequence\": 4, \"manifest_sha256\": \"" + std::string(64, 'a') + "\"}}}");
  ::chmod(r.watermark().c_str(), 0600);
  const std::vector<std::string> env = {"LAS_TRUST_STORE=" + r.trust_store(),
                                        "LAS_RELEASE_WATERMARK=" + r.watermark()};
  auto draft = [&](const std::vector<std::string>& environment) {
    return Las({"release", "draft", "--surface", "echo", "--cwd", r.workspace(), "--workspace",
                r.workspace(), "--manifest", r.Sub("other.json"), "--", "/usr/bin/python3",
                r.script(), "echo"},
               environment);
  };
  const auto first = draft(env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find(" --sequence 5 --out SIGNATURE"), std::string::npos) << first.out;
  const auto unknown = draft({});
  ASSERT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_NE(unknown.out.find(" --bump --out SIGNATURE"), std::string::npos)
      << "no watermark to read: the manifest's own next sequence; " << unknown.out;
  // At the largest sequence (a far-future release, before a key rotation) --bump cannot
  // work: a new key starts over (probe FJ4).
  std::string text = Slurp(r.Sub("other.json"));
  const size_t at = text.find("\"sequence\": ");
  ASSERT_NE(at, std::string::npos) << text;
  const size_t end = text.find_first_of(",\n", at);
  text.replace(at, end - at, "\"sequence\": 9007199254740991");
  Spit(r.Sub("other.json"), text);
  const auto at_max = draft({});
  ASSERT_EQ(at_max.exit_code, 0) << at_max.err;
  EXPECT_NE(at_max.out.find(" --sequence 1 --out SIGNATURE"), std::string::npos) << at_max.out;
}

// A sequence written as an integer too large for 64 bits is out of range, not "a fraction"
// (probe T7).
TEST(ReleaseSignVerifyTest, AnIntegerSequenceBeyond64BitsIsOutOfRange) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  std::string text = Slurp(r.manifest());
  const size_t at = text.find("\"sequence\": 1,");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, std::string("\"sequence\": 1,").size(), "\"sequence\": 18446744073709551617,");
  Spit(r.manifest(), text);
  auto sign = r.Sign({"--bump"});
  EXPECT_EQ(sign.exit_code, 2) << sign.err;
  EXPECT_NE(sign.err.find("$.sequence: must be between 1 and 9007199254740991"), std::string::npos) << sign.err;
  EXPECT_EQ(sign.err.find("fraction"), std::string::npos) << sign.err;
  // A fraction in range is still called one.
  text.replace(text.find("18446744073709551617"), 20, "2.5");
  Spit(r.manifest(), text);
  auto fraction = r.Sign({"--bump"});
  EXPECT_NE(fraction.err.find("not a fraction or exponent form"), std::string::npos) << fraction.err;
}

// Each release sub-command names itself in its error lines, also for a failure of stdout
// that only main notices (probe T8).
TEST(ReleaseSignVerifyTest, StdoutFailureNamesTheSubCommand) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  ReleaseScratch r;
  const std::string keygen = "exec " + std::string(LAS_EXECUTABLE) + " release keygen --out-dir " +
                             r.keys() + " --trust-store " + r.trust_store() + " >/dev/full";
  auto made = testing::RunCommand({"/bin/sh", "-c", keygen});
  EXPECT_EQ(made.exit_code, 9) << made.err;
  EXPECT_EQ(made.err.rfind("las release keygen: io: writing to standard output failed", 0), 0u) << made.err;
  ASSERT_EQ(r.Draft().exit_code, 0);
  const std::string sign = "exec " + std::string(LAS_EXECUTABLE) + " release sign --manifest " + r.manifest() +
                           " --secret-key " + r.secret_key() + " --out " + r.signature() + " --bump >/dev/full";
  auto signed_ = testing::RunCommand({"/bin/sh", "-c", sign});
  EXPECT_EQ(signed_.exit_code, 9) << signed_.err;
  EXPECT_EQ(signed_.err.rfind("las release sign: io:", 0), 0u) << signed_.err;
  const std::string verify = "exec " + std::string(LAS_EXECUTABLE) + " release verify --manifest " +
                             r.manifest() + " --signature " + r.signature() + " --trust-store " +
                             r.trust_store() + " >/dev/full";
  auto verified = testing::RunCommand({"/bin/sh", "-c", verify});
  EXPECT_EQ(verified.exit_code, 9) << verified.err;
  EXPECT_EQ(verified.err.rfind("las release verify: io:", 0), 0u) << verified.err;
}

// An empty path flag is a usage error, never its variable's file: `--manifest "$NEW"` with
// $NEW unset verified, re-signed or redrafted the live release (probe AV1).
TEST(ReleaseSignVerifyTest, AnEmptyPathFlagIsAUsageErrorNotTheVariablesFile) {
  ReleaseScratch r;
  ASSERT_EQ(r.Keygen().exit_code, 0);
  ASSERT_EQ(r.Draft().exit_code, 0);
  ASSERT_EQ(r.Sign().exit_code, 0);
  const std::string manifest = Slurp(r.manifest());
  const std::string signature = Slurp(r.signature());
  const std::vector<std::string> live = {
      "LAS_RELEASE_MANIFEST=" + r.manifest(), "LAS_RELEASE_SIGNATURE=" + r.signature(),
      "LAS_TRUST_STORE=" + r.trust_store(),   "LAS_RELEASE_WATERMARK=" + r.watermark(),
      "LAS_WORKSPACE=" + r.workspace()};
  ASSERT_EQ(Las({"release", "verify"}, live).exit_code, 0) << "the variables name a valid release";
  const std::vector<std::vector<std::string>> commands = {
      {"release", "verify", "--manifest", ""},
      {"release", "verify", "--signature", ""},
      {"release", "verify", "--trust-store", ""},
      {"release", "verify", "--watermark", ""},
      {"release", "sign", "--manifest", "", "--out", "", "--secret-key", r.secret_key(), "--bump"},
      {"release", "sign", "--secret-key", "", "--bump"},
      {"release", "sign", "--secret-key", r.secret_key(), "--bump", "--watermark", ""},
      {"release", "draft", "--manifest", "", "--surface", "echo", "--", "/usr/bin/python3",
       r.script(), "echo"},
      {"release", "draft", "--workspace", "", "--surface", "echo", "--cwd", "", "--",
       "/usr/bin/python3", r.script(), "echo"},
      {"release", "keygen", "--out-dir", ""},
      {"check", "--manifest", ""},
      {"check", "--workspace", ""},
  };
  for (const auto& command : commands) {
    std::string shown;
    for (const auto& word : command) shown += (word.empty() ? "\"\"" : word) + " ";
    const testing::CommandResult result = Las(command, live);
    EXPECT_EQ(result.exit_code, 2) << shown << result.err;
    EXPECT_NE(result.err.find("the path is empty"), std::string::npos) << shown << result.err;
  }
  EXPECT_EQ(Slurp(r.manifest()), manifest) << "the live manifest is untouched";
  EXPECT_EQ(Slurp(r.signature()), signature) << "the live signature is untouched";
}

}  // namespace
}  // namespace las
