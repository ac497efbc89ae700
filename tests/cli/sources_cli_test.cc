// `las sources`, `las inspect catalog|sources|watermarks|sessions`, `las events tail`
// against real logs in temp dirs, through the real executable.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <sstream>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "tools/decision_events.h"
#include "tools/source_events.h"

namespace las {
namespace {

using nlohmann::json;

testing::CommandResult Las(std::vector<std::string> args) {
  args.insert(args.begin(), LAS_EXECUTABLE);
  return testing::RunCommand(args);
}

class SourcesCliTest : public ::testing::Test {
 protected:
  // A log where echo was admitted with two tools and dead failed to start.
  void SetUp() override {
    auto log = log::EventLog::Open(log_dir());
    ASSERT_TRUE(log.ok());
    std::vector<trust::LiveTool> live(2);
    live[0].name = "echo";
    live[0].input_schema_json = R"({"type":"object"})";
    live[1].name = "dashboard";
    live[1].input_schema_json = R"({"type":"object"})";
    ASSERT_TRUE((*log)->Append({tools::CatalogLoadedEvent("echo", live, nullptr),
                                tools::SurfaceRejectedEvent("dead", 1, "start-failed", "exit 3")})
                    .ok());
  }
  std::string log_dir() const { return tmp_.Sub("log"); }
  testing::TempDir tmp_;
};

TEST_F(SourcesCliTest, ListsEverySourceAlignedAndAsJson) {
  auto human = Las({"sources", "--log", log_dir()});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  auto lines = testing::Lines(human.out);
  ASSERT_GE(lines.size(), 2u);
  const size_t kind_column = lines[0].find("KIND");
  bool echo_row = false;
  for (const auto& line : lines) {
    if (line.rfind("echo ", 0) == 0) {
      echo_row = true;
      EXPECT_EQ(line.find("connection"), kind_column) << "aligned columns:\n" << human.out;
    }
  }
  EXPECT_TRUE(echo_row) << human.out;

  auto out = Las({"sources", "--log", log_dir(), "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto list = json::parse(out.out);
  std::map<std::string, json> by_id;
  for (const auto& s : list["sources"]) by_id[s["id"]] = s;
  ASSERT_TRUE(by_id.count("echo"));
  EXPECT_EQ(by_id["echo"]["counts"]["tools"], 2);
  EXPECT_EQ(by_id["echo"]["preview"]["tools"], json({"echo__dashboard", "echo__echo"}));
  EXPECT_EQ(by_id["dead"]["counts"]["tools"], 0);
  EXPECT_EQ(by_id["dead"]["description"], "No catalog loaded for dead: start-failed");
  EXPECT_EQ(by_id["lem"]["description"], "No catalog loaded for lem: not-recorded")
      << "configured (default registry) but never recorded";
  for (const char* system : {"las", "las.docs", "las.std", "las.admin"}) {
    ASSERT_TRUE(by_id.count(system)) << system;
    EXPECT_EQ(by_id[system]["kind"], "system");
  }
  EXPECT_EQ(by_id["las.std"]["counts"]["reducers"], 5);
}

TEST_F(SourcesCliTest, InspectOneSourceAndUnknownIsNotFound) {
  auto out = Las({"sources", "inspect", "las.docs", "--log", log_dir(), "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto detail = json::parse(out.out);
  EXPECT_EQ(detail["resources"].size(), 3u);
  EXPECT_EQ(detail["resources"][0]["uri"], "las://docs/authoring");
  auto human = Las({"sources", "inspect", "echo", "--log", log_dir()});
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_NE(human.out.find("echo__dashboard"), std::string::npos);
  auto missing = Las({"sources", "inspect", "nope", "--log", log_dir()});
  EXPECT_EQ(missing.exit_code, 4);
  // An empty or blank id is a usage error, as for every other id (probe GV5: blank was 4).
  for (const std::string id : {"", " "}) {
    auto empty = Las({"sources", "inspect", id, "--log", log_dir()});
    EXPECT_EQ(empty.exit_code, 2) << "\"" << id << "\"";
    EXPECT_EQ(empty.err,
              "las sources inspect: invalid_argument: ID: an empty id names nothing (see `las "
              "sources inspect --help`)\n");
  }
}

TEST_F(SourcesCliTest, AReasonMustBePrintableText) {
  // Blank says nothing, as empty does (probe GV6).
  for (const std::string& reason : {std::string("evil\x1b[2J\x1b[31mRED\nSECOND LINE"), std::string("r\xff"),
                                    std::string(257, 'r'), std::string(" "), std::string("\t ")}) {
    auto refused = Las({"sources", "disable", "echo", "--reason", reason, "--log", log_dir()});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_EQ(refused.err.find('\x1b'), std::string::npos) << refused.err;
  }
  auto inspect = Las({"inspect", "sources", "--log", log_dir(), "--json"});
  EXPECT_TRUE(json::parse(inspect.out)["sources"].empty()) << "nothing was appended";
}

TEST_F(SourcesCliTest, DisableAndEnableAppendEventsWhileTheLogIsFree) {
  auto disabled = Las({"sources", "disable", "echo", "--reason", "maintenance", "--log", log_dir()});
  ASSERT_EQ(disabled.exit_code, 0) << disabled.err;
  auto list = json::parse(Las({"sources", "--log", log_dir(), "--json"}).out);
  for (const auto& s : list["sources"]) {
    if (s["id"] == "echo") {
      EXPECT_EQ(s["enabled"], false);
      EXPECT_EQ(s["disabled_reason"], "maintenance");
    }
  }
  auto inspect = Las({"inspect", "sources", "--log", log_dir(), "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  auto toggles = json::parse(inspect.out)["sources"];
  ASSERT_EQ(toggles.size(), 1u);
  EXPECT_EQ(toggles[0]["source_id"], "echo");
  EXPECT_EQ(toggles[0]["enabled"], false);
  ASSERT_EQ(Las({"sources", "enable", "echo", "--log", log_dir()}).exit_code, 0);
  toggles = json::parse(Las({"inspect", "sources", "--log", log_dir(), "--json"}).out)["sources"];
  EXPECT_EQ(toggles[0]["enabled"], true);

  EXPECT_EQ(Las({"sources", "disable", "las", "--log", log_dir()}).exit_code, 2);
  auto reducers = Las({"sources", "disable", "las.std", "--log", log_dir()});
  EXPECT_EQ(reducers.exit_code, 2) << "the state tools' reducers cannot be switched off";
  EXPECT_NE(reducers.err.find("las.std cannot be disabled"), std::string::npos) << reducers.err;
  // An unknown id is refused before the log is opened for writing: no seal note, no lock
  // taken that a server starting then would find (probe DR3).
  auto unknown = Las({"sources", "disable", "nope", "--log", log_dir()});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.err;
  EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1) << unknown.err;
  EXPECT_EQ(Las({"sources", "disable", "echo", "--log", tmp_.Sub("none")}).exit_code, 4)
      << "no log: nothing is created";
}

// The server holds the log but cannot bind its operator socket (the runtime directory is
// open to others, so it is refused): it still serves stdio, and the CLI, refusing that
// directory too, reaches no server and reports the lock.
TEST_F(SourcesCliTest, DisableWhileAServerHoldsTheLogIsLockedAndNamesTheWayThroughIt) {
  const std::string run_dir = tmp_.Sub("run");
  ASSERT_EQ(::mkdir(run_dir.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((run_dir + "/las").c_str(), 0700), 0);
  ASSERT_EQ(::chmod((run_dir + "/las").c_str(), 0755), 0);
  const std::string runtime = "XDG_RUNTIME_DIR=" + run_dir;
  testing::ChildProcess server(
      {"/usr/bin/env", runtime, LAS_EXECUTABLE, "serve", "--log", log_dir()});
  server.WriteLine(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  ASSERT_TRUE(server.ReadLine().has_value()) << "the server holds the log and serves stdio";
  // The CLI asks no server behind a directory open to others: it names the mode (probe CD1).
  auto unsafe = testing::RunCommand(
      {LAS_EXECUTABLE, "sources", "disable", "echo", "--log", log_dir()}, {runtime});
  EXPECT_EQ(unsafe.exit_code, 8) << unsafe.err;
  EXPECT_NE(unsafe.err.find("is accessible to group or others"), std::string::npos) << unsafe.err;
  // A safe directory with no socket in it (the server bound none): locked.
  ASSERT_EQ(::chmod((run_dir + "/las").c_str(), 0700), 0);
  auto locked = testing::RunCommand(
      {LAS_EXECUTABLE, "sources", "disable", "echo", "--log", log_dir()}, {runtime});
  EXPECT_EQ(locked.exit_code, 7) << locked.err;
  EXPECT_NE(locked.err.find("las__disable_source"), std::string::npos) << locked.err;
  EXPECT_EQ(std::count(locked.err.begin(), locked.err.end(), '\n'), 1) << "one line: " << locked.err;
  // What every server refuses alike is refused at once, with its own code, not "locked"
  // (probe DR3); so is an id no server answers for.
  for (const auto& [id, code] : {std::pair<std::string, int>{"las", 2}, {"nope", 4}}) {
    auto refused = testing::RunCommand(
        {LAS_EXECUTABLE, "sources", "disable", id, "--log", log_dir()}, {runtime});
    EXPECT_EQ(refused.exit_code, code) << id << ": " << refused.err;
  }
  // Reading works meanwhile.
  EXPECT_EQ(Las({"sources", "--log", log_dir()}).exit_code, 0);
  server.CloseStdin();
  int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Nothing was appended by the refused CLI.
  auto toggles = json::parse(Las({"inspect", "sources", "--log", log_dir(), "--json"}).out);
  EXPECT_TRUE(toggles["sources"].empty());
}

TEST_F(SourcesCliTest, InspectCatalogWatermarksSessions) {
  auto catalog = Las({"inspect", "catalog", "--log", log_dir(), "--json"});
  ASSERT_EQ(catalog.exit_code, 0) << catalog.err;
  auto surfaces = json::parse(catalog.out)["surfaces"];
  ASSERT_EQ(surfaces.size(), 2u);
  EXPECT_EQ(surfaces[0]["surface"], "dead");
  EXPECT_EQ(surfaces[0]["admitted"], false);
  EXPECT_EQ(surfaces[0]["reason"], "start-failed");
  EXPECT_EQ(surfaces[1]["tools"].size(), 2u);
  auto human = Las({"inspect", "catalog", "--log", log_dir()});
  EXPECT_NE(human.out.find("echo,dashboard"), std::string::npos) << human.out;
  auto watermarks = Las({"inspect", "watermarks", "--log", log_dir(), "--json"});
  ASSERT_EQ(watermarks.exit_code, 0);
  EXPECT_TRUE(json::parse(watermarks.out)["keys"].empty());
  auto sessions = Las({"inspect", "sessions", "--log", log_dir(), "--json"});
  ASSERT_EQ(sessions.exit_code, 0);
  EXPECT_TRUE(json::parse(sessions.out)["sessions"].empty());
  EXPECT_EQ(Las({"inspect", "catalog", "--log", tmp_.Sub("none")}).exit_code, 4);
}

// A release refused before its signature verified (unknown-key, bad-signature) names no
// key; the releases projection counts such refusals under the key id "". That is not a
// key: the table says "(no key)" with no watermark, the JSON keeps the "" row as it is
// folded (probe AF2; docs/CLI.md).
TEST_F(SourcesCliTest, InspectWatermarksShowsRefusalsBeforeAnyKeyAsNoKey) {
  const std::string log_dir = tmp_.Sub("releases-log");
  {
    auto log = log::EventLog::Open(log_dir);
    ASSERT_TRUE(log.ok());
    const std::string digest(64, 'a');
    ASSERT_TRUE((*log)->Append({tools::WatermarkAdvancedEvent("8f06854545bc3157", 0, 1, digest),
                                tools::ReleaseRejectedEvent("", 0, "", "unknown-key", "k2"),
                                tools::ReleaseRejectedEvent("", 0, "", "bad-signature", "")})
                    .ok());
  }
  auto human = Las({"inspect", "watermarks", "--log", log_dir});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  const auto lines = testing::Lines(human.out);
  ASSERT_EQ(lines.size(), 3u) << human.out;
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream split(line);
    for (std::string cell; split >> cell;) out.push_back(cell);
    return out;
  };
  EXPECT_EQ(cells(lines[1]), (std::vector<std::string>{"(no", "key)", "-", "0", "2", "bad-signature"}))
      << human.out;
  EXPECT_EQ(cells(lines[2]), (std::vector<std::string>{"8f06854545bc3157", "1", "0", "0", "-"}))
      << human.out;
  auto keys = json::parse(Las({"inspect", "watermarks", "--log", log_dir, "--json"}).out)["keys"];
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], json::parse(R"({"key_id":"","watermark":0,"manifest_sha256":"","accepted":0,
                                      "rejected":2,"last_rejection":"bad-signature"})"));
  EXPECT_EQ(keys[1]["key_id"], "8f06854545bc3157");
  EXPECT_EQ(keys[1]["watermark"], 1);
}

// A payload's text is shown escaped in the human form: JSON leaves U+202E (right-to-left
// override) as it is, and a terminal would reorder the line.
TEST_F(SourcesCliTest, EventsTailEscapesBidirectionalControlsInPayloads) {
  {
    auto log = log::EventLog::Open(log_dir());
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->Append({tools::SourceDisabledEvent("echo", "abc\u202Efed", "", "")}).ok());
  }
  auto human = Las({"events", "tail", "-n", "1", "--log", log_dir()});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_EQ(human.out.find("\u202E"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("abc\\u{202E}fed"), std::string::npos) << human.out;
}

TEST_F(SourcesCliTest, EventsTailPrintsTheLastNAndFollowsUntilSigint) {
  auto last = Las({"events", "tail", "-n", "1", "--json", "--log", log_dir()});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  auto lines = testing::Lines(last.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["kind"], "SurfaceRejected");
  auto human = Las({"events", "tail", "--log", log_dir()});
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_EQ(testing::Lines(human.out).size(), 3u) << "header and both events:\n" << human.out;

  testing::ChildProcess tail(
      {LAS_EXECUTABLE, "events", "tail", "-f", "-n", "2", "--json", "--log", log_dir()});
  // The two existing events first: then the follower is open and catching up.
  ASSERT_TRUE(tail.ReadLine().has_value());
  ASSERT_TRUE(tail.ReadLine().has_value());
  {
    auto log = log::EventLog::Open(log_dir());
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->Append({tools::SourceDisabledEvent("echo", "live", "", "")}).ok());
  }
  auto followed = tail.ReadLine();
  ASSERT_TRUE(followed.has_value());
  auto event = json::parse(*followed);
  EXPECT_EQ(event["kind"], "SourceDisabled");
  EXPECT_EQ(event["seq"], 3);
  tail.Kill(SIGINT);
  const int status = tail.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a clean end on SIGINT";
}

// The human table stays aligned whatever the agents' lengths (probe AL5): PAYLOAD starts in
// the same column on every line, the header's included.
TEST_F(SourcesCliTest, EventsTailAlignsThePayloadColumnForLongAgentIds) {
  {
    auto log = log::EventLog::Open(log_dir());
    ASSERT_TRUE(log.ok());
    const std::string long_agent = "research-assistant-7-with-a-long-name";
    ASSERT_TRUE((*log)->Append({tools::SourceDisabledEvent("echo", "one", long_agent, "s-1"),
                                tools::SourceEnabledEvent("echo", "a", "s-2")})
                    .ok());
  }
  auto human = Las({"events", "tail", "-n", "3", "--log", log_dir()});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  const auto lines = testing::Lines(human.out);
  ASSERT_EQ(lines.size(), 4u) << human.out;
  const size_t column = lines[0].find("PAYLOAD");
  ASSERT_NE(column, std::string::npos);
  for (size_t i = 1; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), column) << lines[i];
    EXPECT_EQ(lines[i][column], '{') << "payload of line " << i << " starts under its header:\n"
                                     << human.out;
    EXPECT_EQ(lines[i][column - 1], ' ') << human.out;
  }
}

}  // namespace
}  // namespace las
