// `las grant`, `las revoke`, `las grants`, `las rules` as an operator runs them: the real
// executable on a real log, exit codes and output checked.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "log/event_builder.h"
#include "log/event_log.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tools/daemon_socket.h"
#include "tools/decision_events.h"
#include "tools/definition_digest.h"
#include "tools/grant_policy.h"
#include "trust/digest.h"
#include "trust/tool_binding_check.h"

namespace las {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::Lines;

class GrantCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.Sub("log");
    // A log whose recorded catalog lists echo__echo (as a server's federation records it).
    auto log = log::EventLog::Open(dir_);
    ASSERT_TRUE(log.ok());
    trust::LiveTool echo;
    echo.name = "echo";
    echo.input_schema_json = R"({"type":"object"})";
    echo.description = "Echo a message";
    std::vector<log::EventDraft> drafts;
    drafts.push_back(tools::CatalogLoadedEvent("echo", {echo}, nullptr));
    ASSERT_TRUE((*log)->Append(std::move(drafts)).ok());
    echo_digest_ = tools::DefinitionDigestFromHex(
        trust::Sha256Hex(*trust::InputSchemaDigest(echo.input_schema_json)),
        trust::Sha256Hex(*trust::DescriptionDigest(echo.description)), "");
  }
  CommandResult Las(std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(dir_);
    return testing::RunCommand(args);
  }
  json Json(std::vector<std::string> args) {
    args.push_back("--json");
    auto result = Las(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
  }

  testing::TempDir tmp_;
  std::string dir_;
  std::string echo_digest_;
};

TEST_F(GrantCliTest, AGrantNamesTheToolsCurrentDefinitionDigestFromTheLog) {
  auto granted = Las({"grant", "worker", "--tool", "echo__echo"});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  const std::string id = Lines(granted.out).at(0);
  EXPECT_EQ(id.rfind("grant-", 0), 0u) << id;
  json grants = Json({"grants"});
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]["grant_id"], id);
  EXPECT_EQ(grants[0]["agent_id"], "worker");
  EXPECT_EQ(grants[0]["issuer"], "");
  EXPECT_EQ(grants[0]["root"], false);
  ASSERT_EQ(grants[0]["selectors"].size(), 1u);
  EXPECT_EQ(grants[0]["selectors"][0]["definition_sha256"], echo_digest_);
  EXPECT_EQ(grants[0]["selectors"][0]["surface"], "echo");
  EXPECT_EQ(grants[0]["selectors"][0]["tool"], "echo");
  EXPECT_TRUE(Json({"grants", "--agent", "nobody"}).empty());

  // Explicit digests, inline or with --digest; --all for root.
  const std::string other(64, 'e');
  auto pinned = Las({"grant", "worker", "--tool", "lem__search@" + other});
  EXPECT_EQ(pinned.exit_code, 0) << pinned.err;
  // What it covers is said (probe HT2: confirmed as "may call" though it covers nothing).
  EXPECT_NE(granted.err.find("worker may call echo__echo (definition " + echo_digest_ + ")\n"),
            std::string::npos)
      << granted.err;
  EXPECT_NE(pinned.err.find("; the log's catalog holds no such tool: this covers nothing now"),
            std::string::npos)
      << pinned.err;
  auto other_definition = Las({"grant", "helper", "--tool", "echo__echo@" + other});
  EXPECT_NE(other_definition.err.find(
                "; the log's catalog holds the tool at another definition: this covers none of it"),
            std::string::npos)
      << other_definition.err;
  EXPECT_EQ(Las({"grant", "worker", "--tool", "lem__search", "--digest", other}).exit_code, 10)
      << "the same grant, spelled with --digest: already given";
  EXPECT_EQ(Las({"grant", "boss", "--all"}).exit_code, 0);
  json boss = Json({"grants", "--agent", "boss"});
  ASSERT_EQ(boss.size(), 1u);
  EXPECT_EQ(boss[0]["root"], true);
}

// A catalog recorded by a Las that did not record credential templates cannot tell a
// tool's definition digest (a server now serves another one for a tool with templates):
// `las grant` says so rather than name a digest that may match nothing (probe DT1); a
// digest given is taken as before.
TEST_F(GrantCliTest, ACatalogRecordedBeforeTemplatesWereRecordedNamesNoDigest) {
  {
    auto log = log::EventLog::Open(dir_);
    ASSERT_TRUE(log.ok());
    log::EventBuilder b;
    auto& f = b.fbb();
    const std::vector<flatbuffers::Offset<fb::ToolDigest>> tools = {fb::CreateToolDigest(
        f, f.CreateString("echo"), f.CreateString(std::string(64, 'a')),
        f.CreateString(std::string(64, 'b')))};  // no credential_templates_sha256
    auto payload = fb::CreateCatalogLoaded(f, f.CreateString("echo"), f.CreateVector(tools));
    ASSERT_TRUE((*log)->Append({b.Finish(payload, "", "")}).ok());
  }
  auto refused = Las({"grant", "worker", "--tool", "echo__echo"});
  EXPECT_EQ(refused.exit_code, 4) << refused.err;
  EXPECT_NE(refused.err.find("recorded by an earlier Las"), std::string::npos) << refused.err;
  auto given = Las({"grant", "worker", "--tool", "echo__echo@" + echo_digest_});
  EXPECT_EQ(given.exit_code, 0) << given.err;
}

TEST_F(GrantCliTest, BadGrantsAreRefusedWithTheirExitCodesAndNothingIsWritten) {
  const CommandResult no_surface = Las({"grant", "worker", "--tool", "lem__search"});
  EXPECT_EQ(no_surface.exit_code, 4) << "not in the recorded catalog and no digest";
  EXPECT_NE(no_surface.err.find("has no surface lem"), std::string::npos) << no_surface.err;
  // A typo in a tool's name names the surface's tools (probe FI3: it said to run las list).
  const CommandResult typo = Las({"grant", "worker", "--tool", "echo__ecoh"});
  EXPECT_EQ(typo.exit_code, 4) << typo.err;
  EXPECT_NE(typo.err.find("surface echo has no tool ecoh in the log's recorded catalog "
                          "(echo__ecoh); its tools: echo"),
            std::string::npos)
      << typo.err;
  const CommandResult short_digest = Las({"grant", "worker", "--tool", "echo__echo", "--digest", "ABC"});
  EXPECT_EQ(short_digest.exit_code, 2);
  EXPECT_NE(short_digest.err.find(R"(64 lowercase hex characters, not "ABC")"), std::string::npos)
      << short_digest.err;
  // Each refusal quotes what it refused (probe IZ3).
  const CommandResult upper = Las({"grant", "worker", "--tool", "echo__echo@" + std::string(64, 'A')});
  EXPECT_EQ(upper.exit_code, 2);
  EXPECT_NE(upper.err.find("a definition digest after '@' is 64 lowercase hex"), std::string::npos) << upper.err;
  const CommandResult unnamed = Las({"grant", "worker", "--tool", ""});
  EXPECT_NE(unnamed.err.find("a tool is named surface__tool, not \"\""), std::string::npos) << unnamed.err;
  const CommandResult control = Las({"grant", "al\x01ice", "--all"});
  EXPECT_NE(control.err.find(", not \"al\\u{0001}ice\""), std::string::npos) << control.err;
  EXPECT_EQ(Las({"grant", "worker", "--tool", "noseparator"}).exit_code, 2);
  EXPECT_EQ(Las({"grant", "worker", "--tool", "las__onboarding"}).exit_code, 2);
  EXPECT_EQ(Las({"grant", "worker"}).exit_code, 2) << "neither --all nor --tool";
  EXPECT_EQ(Las({"grant", "worker", "--all", "--tool", "echo__echo"}).exit_code, 2);
  EXPECT_EQ(Las({"grant", "bad\nagent", "--all"}).exit_code, 2);
  EXPECT_EQ(Las({"grant", "x\xff", "--all"}).exit_code, 2) << "not UTF-8 (grants --json aborted on it)";
  EXPECT_EQ(Las({"grant", "abc\u202e", "--all"}).exit_code, 2) << "a bidirectional control";
  EXPECT_EQ(Las({"rules", "add", "y\xfe", "echo__echo", "--digest", std::string(64, 'a')}).exit_code, 2);
  auto files = [this] {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) names.insert(entry.path().filename());
    return names;
  };
  const auto before = files();
  for (const std::string& tool : {std::string("ev\nil__x"), std::string("echo__ta\tb"), std::string("bad tool__x"),
                                  "echo__echo@" + std::string(64, 'a') + "@x"}) {
    EXPECT_EQ(Las({"grant", "worker", "--tool", tool, "--digest", std::string(64, 'a')}).exit_code, 2) << tool;
    EXPECT_EQ(Las({"rules", "add", "worker", tool, "--digest", std::string(64, 'a')}).exit_code, 2) << tool;
  }
  EXPECT_EQ(files(), before) << "a refused name opened the log (RocksDB rotates its LOG on open)";
  EXPECT_EQ(Las({"grant", "worker", "--tool", "echo__echo", "--tool", "echo__echo",
                 "--digest", std::string(64, 'a')})
                .exit_code,
            2)
      << "--digest goes with exactly one --tool";
  // A digest given twice, in the tool and by --digest, is refused for grants and rules
  // alike: `rules add` recorded the flag's (probe AV4).
  const std::string tool_with_digest = "echo__echo@" + std::string(64, 'a');
  for (const std::vector<std::string>& twice :
       {std::vector<std::string>{"grant", "worker", "--tool", tool_with_digest},
        std::vector<std::string>{"rules", "add", "worker", tool_with_digest}}) {
    std::vector<std::string> args = twice;
    args.insert(args.end(), {"--digest", std::string(64, 'b')});
    const auto refused = Las(args);
    EXPECT_EQ(refused.exit_code, 2) << twice[0] << ": " << refused.err;
    EXPECT_NE(refused.err.find("names one too: give it once"), std::string::npos) << refused.err;
  }
  EXPECT_TRUE(Json({"grants", "--all"}).empty());
  EXPECT_TRUE(Json({"rules"}).empty());
}

// A second operator grant of exactly what a live one gives is a conflict (exit 10): it would
// give nothing more, and revoking one of the two would not stop the calls. Another set of
// tools, or the same after a revoke, is a new grant.
// One tool named twice is one selector: it was recorded, and printed, twice (probe CD5).
TEST_F(GrantCliTest, AToolNamedTwiceIsOneSelector) {
  auto granted = Las({"grant", "worker", "--tool", "echo__echo", "--tool", "echo__echo"});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  const json grants = Json({"grants"});
  ASSERT_EQ(grants.size(), 1u) << grants.dump();
  EXPECT_EQ(grants[0]["selectors"].size(), 1u) << grants.dump();
  size_t said = 0;
  for (size_t at = granted.err.find("may call echo__echo"); at != std::string::npos;
       at = granted.err.find("may call echo__echo", at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 1u) << granted.err;
}

TEST_F(GrantCliTest, AnIdenticalLiveGrantIsAConflict) {
  const std::string lem = std::string(64, 'b');
  auto first = Las({"grant", "worker", "--all"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto again = Las({"grant", "worker", "--all"});
  EXPECT_EQ(again.exit_code, 10) << again.err;
  EXPECT_NE(again.err.find("already gives worker exactly this"), std::string::npos) << again.err;
  ASSERT_EQ(Las({"grant", "worker", "--tool", "echo__echo", "--tool", "lem__search@" + lem}).exit_code, 0);
  EXPECT_EQ(Las({"grant", "worker", "--tool", "lem__search@" + lem, "--tool", "echo__echo"}).exit_code, 10)
      << "the same tools in another order";
  EXPECT_EQ(Las({"grant", "worker", "--tool", "echo__echo"}).exit_code, 0) << "fewer tools: another grant";
  EXPECT_EQ(Las({"grant", "other", "--all"}).exit_code, 0) << "another agent";
  ASSERT_EQ(Las({"revoke", testing::Lines(first.out).at(0)}).exit_code, 0);
  EXPECT_EQ(Las({"grant", "worker", "--all"}).exit_code, 0) << "anew after the revoke";
  EXPECT_EQ(Json({"grants"}).size(), 4u);
  EXPECT_EQ(Json({"grants", "--all"}).size(), 5u) << "and the revoked one";
}

// A tool named without its digest needs a recorded catalog: on a path with no log (a
// mistyped --log) the request is refused and leaves no new log there; with a digest or
// --all, the log is created.
// `--agent` selects one agent everywhere: a value no session could bind (empty, a control
// character, over 256 bytes) is a usage error, not a filter that shows everything.
TEST_F(GrantCliTest, AnAgentFilterMustBeAnAgentId) {
  ASSERT_EQ(Las({"grant", "alice", "--all"}).exit_code, 0);
  for (const std::vector<std::string>& verb :
       {std::vector<std::string>{"grants"}, {"rules"}, {"rules", "list"}, {"replay"}}) {
    for (const std::string& bad : {std::string(), std::string("a\x01"), std::string(257, 'a')}) {
      std::vector<std::string> args = verb;
      args.insert(args.end(), {"--agent", bad});
      CommandResult refused = Las(args);
      EXPECT_EQ(refused.exit_code, 2) << verb[0] << " " << refused.out;
      EXPECT_NE(refused.err.find("--agent: an agent id is 1 to 256 bytes"), std::string::npos) << refused.err;
      EXPECT_EQ(refused.out, "") << verb[0];
    }
  }
  EXPECT_EQ(Json({"grants", "--agent", "alice"}).size(), 1u);
  EXPECT_EQ(Json({"grants", "--agent", "bob"}).size(), 0u);
}

// Probe K8: a LAS_AGENT_ID no session could bind started the server silently, and every
// client that named no agent was refused at initialize for an id it never sent.
TEST_F(GrantCliTest, AServerRefusesToStartWithAnInvalidDefaultAgentId) {
  for (const char* verb : {"serve", "daemon"}) {
    CommandResult refused = testing::RunCommand({"/usr/bin/env", "LAS_AGENT_ID=ops ", LAS_EXECUTABLE, verb, "--log",
                                        dir_ + "/served"});
    EXPECT_EQ(refused.exit_code, 2) << verb << ": " << refused.err;
    EXPECT_EQ(refused.err, std::string("las ") + verb + ": invalid_argument: LAS_AGENT_ID: " +
                               tools::kAgentIdRule + ", not \"ops \"\n");
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/served")) << "nothing was opened";
  }
}

// Probe KC1: an empty LAS_AGENT_ID (`LAS_AGENT_ID=$AGENT` with AGENT unset) was taken for
// unset, and every client became the default agent, with its implicit root grant.
TEST_F(GrantCliTest, AServerRefusesToStartWithAnEmptyDefaultAgentId) {
  for (const char* verb : {"serve", "daemon"}) {
    CommandResult refused = testing::RunCommand({"/usr/bin/env", "LAS_AGENT_ID=", LAS_EXECUTABLE, verb, "--log",
                                        dir_ + "/served"});
    EXPECT_EQ(refused.exit_code, 2) << verb << ": " << refused.err;
    EXPECT_EQ(refused.err, std::string("las ") + verb +
                               ": invalid_argument: LAS_AGENT_ID: set but empty; unset it for the "
                               "default agent, \"default\"\n");
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/served")) << "nothing was opened";
  }
}

TEST_F(GrantCliTest, ARequestThatNeedsACatalogCreatesNoLog) {
  const std::string typo = tmp_.Sub("typo-log");
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(typo);
    return testing::RunCommand(args);
  };
  auto granted = run({"grant", "worker", "--tool", "echo__echo"});
  EXPECT_EQ(granted.exit_code, 4) << granted.err;
  EXPECT_NE(granted.err.find("digest"), std::string::npos) << granted.err;
  EXPECT_EQ(run({"rules", "add", "worker", "echo__echo"}).exit_code, 4);
  EXPECT_FALSE(std::filesystem::exists(typo));
  EXPECT_EQ(run({"grant", "worker", "--tool", "echo__echo", "--digest", std::string(64, 'a')})
                .exit_code,
            0);
  EXPECT_TRUE(std::filesystem::exists(typo));
}

TEST_F(GrantCliTest, RevokeCascadesAndASecondRevokeIsAConflict) {
  auto granted = Las({"grant", "worker", "--all"});
  ASSERT_EQ(granted.exit_code, 0);
  const std::string id = Lines(granted.out).at(0);
  auto revoked = Las({"revoke", id});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_EQ(Lines(revoked.out), std::vector<std::string>{id});
  EXPECT_TRUE(revoked.err.ends_with("las revoke: revoked " + id + "\n"))
      << "said (probe HT3): " << revoked.err;
  EXPECT_TRUE(Json({"grants"}).empty()) << "only live grants by default";
  json all = Json({"grants", "--all"});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["status"], "revoked");
  EXPECT_EQ(all[0]["reason"], "revoked-by-operator");
  EXPECT_EQ(Las({"revoke", id}).exit_code, 10);
  EXPECT_EQ(Las({"revoke", "grant-nosuch"}).exit_code, 4);
  // An empty or blank id names nothing: a usage error, not "no grant " (probe Y5).
  for (const char* blank : {"", " "}) {
    auto refused = Las({"revoke", blank});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("an empty id names nothing"), std::string::npos) << refused.err;
    EXPECT_EQ(Las({"rules", "forget", blank}).exit_code, 2);
    EXPECT_EQ(Las({"sources", "disable", blank}).exit_code, 2);
  }
}

TEST_F(GrantCliTest, RulesAreAddedListedAndForgotten) {
  auto added = Las({"rules", "add", "worker", "echo__echo"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const std::string id = Lines(added.out).at(0);
  EXPECT_TRUE(added.err.ends_with("las rules add: worker may always call echo__echo (definition " +
                                   echo_digest_ + ")\n"))
      << "the definition it chose, said (probe HT3): " << added.err;
  EXPECT_EQ(id.rfind("rule-", 0), 0u);
  for (auto listing : {Json({"rules"}), Json({"rules", "list"})}) {
    ASSERT_EQ(listing.size(), 1u);
    EXPECT_EQ(listing[0]["rule_id"], id);
    EXPECT_EQ(listing[0]["agent_id"], "worker");
    EXPECT_EQ(listing[0]["definition_sha256"], echo_digest_);
  }
  auto text = Las({"rules"});
  EXPECT_NE(text.out.find("echo__echo"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" live "), std::string::npos) << text.out;
  EXPECT_EQ(Las({"rules", "add", "worker", "echo__echo", "--digest", "xyz"}).exit_code, 2);
  // The same rule again (by name, or by its digest) would allow nothing more.
  auto again = Las({"rules", "add", "worker", "echo__echo"});
  EXPECT_EQ(again.exit_code, 10) << again.err;
  EXPECT_NE(again.err.find(id), std::string::npos) << again.err;
  EXPECT_EQ(Las({"rules", "add", "worker", "echo__echo", "--digest", echo_digest_}).exit_code, 10);
  auto forgot = Las({"rules", "forget", id});
  EXPECT_EQ(forgot.exit_code, 0);
  EXPECT_TRUE(forgot.err.ends_with("las rules forget: forgot " + id + "\n")) << forgot.err;
  EXPECT_TRUE(Json({"rules"}).empty());
  auto all = Las({"rules", "--all"});
  EXPECT_NE(all.out.find(" forgotten "), std::string::npos) << "--all shows which ended: " << all.out;
  EXPECT_EQ(Las({"rules", "forget", id}).exit_code, 10);
  EXPECT_EQ(Las({"rules", "forget", "rule-nosuch"}).exit_code, 4);
  EXPECT_EQ(Las({"rules", "add", "worker", "echo__echo"}).exit_code, 0) << "once forgotten, again";
}

// `rules --log DIR add|forget` acts on DIR (probe CY1: the parent's --log reached only the
// listing, and the rule went to the default log, perhaps a production server's).
TEST_F(GrantCliTest, TheLogGivenToRulesIsTheLogItsAddAndForgetChange) {
  const std::string state_home = "XDG_STATE_HOME=" + tmp_.Sub("state");
  auto rules = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {LAS_EXECUTABLE, "rules"});
    return testing::RunCommand(args, {state_home});
  };
  auto added = rules({"--log", dir_, "add", "worker", "echo__echo"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const std::string id = Lines(added.out).at(0);
  ASSERT_EQ(Json({"rules"}).size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("state") + "/las/log")) << "the default log";
  auto twice = rules({"--log", dir_, "forget", id, "--log", tmp_.Sub("other")});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("--log names two logs"), std::string::npos) << twice.err;
  auto same_twice = rules({"--log", dir_, "forget", "rule-nosuch", "--log", dir_ + "/"});
  EXPECT_EQ(same_twice.exit_code, 4) << "one log, written two ways: " << same_twice.err;
  auto listing_flag = rules({"--json", "--log", dir_, "forget", id});
  EXPECT_EQ(listing_flag.exit_code, 2) << listing_flag.err;
  auto forgotten = rules({"--log", dir_, "forget", id});
  EXPECT_EQ(forgotten.exit_code, 0) << forgotten.err;
  EXPECT_TRUE(Json({"rules"}).empty());
  // An empty --digest is refused, not read as "the digest the catalog holds now" (CY3).
  for (std::vector<std::string> empty_digest :
       {std::vector<std::string>{"rules", "add", "worker", "echo__echo", "--digest", ""},
        {"grant", "worker", "--tool", "echo__echo", "--digest", ""}}) {
    auto refused = Las(empty_digest);
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("the digest is empty"), std::string::npos) << refused.err;
  }
  EXPECT_TRUE(Json({"rules"}).empty());
  EXPECT_TRUE(Json({"grants"}).empty());
}

TEST_F(GrantCliTest, ALogHeldByARunningServerIsLockedAndReadsStillWork) {
  auto held = log::EventLog::Open(dir_);  // what a running `las serve` holds
  ASSERT_TRUE(held.ok());
  auto refused = Las({"grant", "worker", "--all"});
  EXPECT_EQ(refused.exit_code, 7);
  EXPECT_NE(refused.err.find("another las process"), std::string::npos) << refused.err;
  EXPECT_EQ(Las({"rules", "add", "worker", "echo__echo"}).exit_code, 7);
  EXPECT_EQ(Las({"grants"}).exit_code, 0) << "listing follows the log";
  EXPECT_EQ(Las({"rules", "--json"}).exit_code, 0);
}

// The lock refusals of grant, revoke, rules add and rules forget did not name the log, as
// those of the other verbs do (probe BI6).
TEST_F(GrantCliTest, TheLockRefusalsOfTheChangesNameTheLog) {
  auto held = log::EventLog::Open(dir_);
  ASSERT_TRUE(held.ok());
  for (const std::vector<std::string>& change :
       {std::vector<std::string>{"grant", "worker", "--all"},
        std::vector<std::string>{"revoke", "grant-0123456789abcdef"},
        std::vector<std::string>{"rules", "add", "worker", "echo__echo"},
        std::vector<std::string>{"rules", "forget", "rule-0123456789abcdef"}}) {
    auto refused = Las(change);
    EXPECT_EQ(refused.exit_code, 7) << change[0] << ": " << refused.err;
    EXPECT_NE(refused.err.find(": locked: " + dir_ + ": the log is held by another las process"),
              std::string::npos)
        << change[0] << ": " << refused.err;
  }
}

// With the log held and the server's socket unusable, a change says why and asks no server:
// it was "a server that does not answer on its socket", exit 7, whatever the cause (probe CD1).
TEST_F(GrantCliTest, AServerSocketTheCliCannotUseIsNamedNotTakenForASilentServer) {
  namespace fs = std::filesystem;
  auto held = log::EventLog::Open(dir_);
  ASSERT_TRUE(held.ok());
  auto grant_with_runtime_dir = [&](const std::string& runtime_dir) {
    return testing::RunCommand({"/usr/bin/env", "XDG_RUNTIME_DIR=" + runtime_dir, LAS_EXECUTABLE,
                                "grant", "worker", "--all", "--log", dir_});
  };
  const std::string file = tmp_.Sub("a-file");
  { std::ofstream(file) << "x"; }
  auto on_a_file = grant_with_runtime_dir(file);
  EXPECT_EQ(on_a_file.exit_code, 2) << on_a_file.err;
  EXPECT_NE(on_a_file.err.find("the socket its server would answer on cannot be used"),
            std::string::npos) << on_a_file.err;
  EXPECT_EQ(on_a_file.err.find("does not answer"), std::string::npos) << on_a_file.err;

  const std::string runtime = tmp_.Sub("run");
  fs::create_directories(runtime + "/las");
  fs::permissions(runtime + "/las", fs::perms::owner_all | fs::perms::group_read |
                                        fs::perms::group_exec);
  auto open_to_group = grant_with_runtime_dir(runtime);
  EXPECT_EQ(open_to_group.exit_code, 8) << open_to_group.err;
  EXPECT_NE(open_to_group.err.find("accessible to group or others"), std::string::npos)
      << open_to_group.err;

  fs::permissions(runtime + "/las", fs::perms::owner_all);
  auto none_there = grant_with_runtime_dir(runtime);
  EXPECT_EQ(none_there.exit_code, 7) << none_there.err;
  EXPECT_NE(none_there.err.find("(no daemon socket at " + runtime + "/las/"), std::string::npos)
      << "the lock names where the server was looked for: " << none_there.err;
  EXPECT_NE(none_there.err.find("if one runs, run this with the XDG_RUNTIME_DIR it has"),
            std::string::npos)
      << "a server with another runtime directory is not reached by running again (probe HT4)";
  // The same where a killed server left its sockets (probe HV1: no advice there).
  auto socket = tools::DaemonSocketFor(dir_, runtime, /*create=*/false);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  for (const std::string& path : {socket->path, socket->operator_path}) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
  }
  auto stale = grant_with_runtime_dir(runtime);
  EXPECT_EQ(stale.exit_code, 7) << stale.err;
  EXPECT_NE(stale.err.find("stale socket"), std::string::npos) << stale.err;
  EXPECT_NE(stale.err.find("if one runs, run this with the XDG_RUNTIME_DIR it has"),
            std::string::npos)
      << stale.err;
  EXPECT_TRUE(Json({"grants"}).empty()) << "nothing was written";
}

// A server that takes a change and closes without answering may still make it: the CLI
// names the id it sent, so that the operator can look for it (probe HT1).
TEST_F(GrantCliTest, AChangeTheServerDidNotAnswerNamesTheIdItWasSentWith) {
  auto held = log::EventLog::Open(dir_);
  ASSERT_TRUE(held.ok());
  const std::string runtime = tmp_.Sub("run");
  std::filesystem::create_directories(runtime);
  auto socket = tools::DaemonSocketFor(dir_, runtime, /*create=*/true);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket->operator_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  std::thread closer([listener] {
    for (int i = 0; i < 2; ++i) {  // the grant, then the rule
      const int taken = ::accept(listener, nullptr, nullptr);
      if (taken < 0) return;
      char buffer[4096];
      while (::read(taken, buffer, sizeof buffer) > 0) {
      }
      ::close(taken);
    }
  });
  auto with_runtime = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "XDG_RUNTIME_DIR=" + runtime, LAS_EXECUTABLE});
    args.insert(args.end(), {"--log", dir_});
    return testing::RunCommand(args);
  };
  auto granted = with_runtime({"grant", "worker", "--all"});
  auto added = with_runtime({"rules", "add", "worker", "echo__echo"});
  closer.join();
  ::close(listener);
  EXPECT_EQ(granted.exit_code, 9) << granted.err;
  EXPECT_NE(granted.err.find("may still be made"), std::string::npos) << granted.err;
  EXPECT_NE(granted.err.find("(it was sent as grant grant-"), std::string::npos) << granted.err;
  EXPECT_EQ(added.exit_code, 9) << added.err;
  EXPECT_NE(added.err.find("(it was sent as rule rule-"), std::string::npos) << added.err;
}

// RocksDB says "While open a file for lock: ...: Permission denied": not another holder.
TEST_F(GrantCliTest, ALogTheUserMayNotWriteIsDeniedNotLocked) {
  namespace fs = std::filesystem;
  const auto read_only = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  std::vector<std::string> grant = {LAS_EXECUTABLE, "grant", "worker", "--all", "--log", dir_};
  // The log stays its user's own (a directory owned by another user is refused before
  // RocksDB is asked: LogDirectoryTest), but neither it nor its files may be written.
  if (::geteuid() == 0) {
    // root writes everything: the log goes to the unprivileged user who runs the command.
    fs::permissions(tmp_.path(), fs::perms::all);
    ASSERT_EQ(::chown(dir_.c_str(), 65534, 65534), 0);
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ASSERT_EQ(::lchown(entry.path().c_str(), 65534, 65534), 0);
    }
  }
  for (const auto& entry : fs::directory_iterator(dir_)) {
    fs::permissions(entry.path(), fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  }
  fs::permissions(dir_, read_only);
  auto refused = testing::RunCommand(testing::AsUnprivilegedUser(grant));
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(refused.exit_code, 8) << refused.err;
  EXPECT_NE(refused.err.find("permission denied"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("another las process"), std::string::npos) << refused.err;
}

TEST_F(GrantCliTest, ReplayRebuildsTheGrantsProjection) {
  ASSERT_EQ(Las({"grant", "worker", "--all"}).exit_code, 0);
  auto replay = Las({"replay", "--summary"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  json summary = json::parse(Lines(replay.out).back())["summary"];
  ASSERT_TRUE(summary["digests"].contains("grants")) << summary.dump();
  auto again = Las({"replay", "--summary"});
  EXPECT_EQ(json::parse(Lines(again.out).back())["summary"]["digests"], summary["digests"]);
}

}  // namespace
}  // namespace las
