// The onboarding journey driven half from the CLI (`las onboarding`) and half from an MCP
// client (the official SDK calling `las__onboarding` through real `las serve`), on one
// log with a real signed release and a real child: both sides see the same state, and
// it survives a restart.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

json Onboarding(json arguments) { return testing::CallStep("las__onboarding", arguments); }

// The journey document of a las__onboarding answer.
json Journey(const json& step) {
  EXPECT_EQ(step["ok"], true) << step.dump();
  if (step["ok"] != true) return json::object();
  return json::parse(step["result"]["content"][0]["text"].get<std::string>());
}

const json& Row(const json& doc, const std::string& name) {
  for (const auto& list : {"steps", "surfaces"}) {
    for (const auto& row : doc[list]) {
      if (row["step"] == name) return row;
    }
  }
  static const json none;
  return none;
}

// What both faces must agree on (as_of_sequence and action differ by design).
json Shared(const json& doc) {
  return {{"steps", doc["steps"]},
          {"surfaces", doc["surfaces"]},
          {"current", doc["current"]},
          {"next", doc["next"]},
          {"complete", doc["complete"]}};
}

class OnboardingE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    testing::AddStandIns(*release_, {"echo"});
    ASSERT_FALSE(HasFailure());
    release_->Sign(1);
  }

  testing::CommandResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    for (const char* flag : {"--log"}) args.push_back(flag);
    args.push_back(tmp_.Sub("log"));
    return testing::RunCommand(args, release_->Environment());
  }
  json CliStatus() {
    auto result = Cli({"onboarding", "status", "--json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
  }

  testing::SdkRun Serve(json steps) {
    return testing::RunServe(
        tmp_.Sub("log"), release_->registry_path(),
        testing::EnvObject(release_->Environment(), {{"LAS_AGENT_ID", "onboarding-agent"}}),
        steps);
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

// The journey is the whole log's: an agent changes it by hand (mark, reset) only with a
// root grant; status and check stay open to every agent.
TEST_F(OnboardingE2eTest, MarkAndResetFromAnAgentNeedARootGrant) {
  auto serve = [&] {
    return testing::RunServe(tmp_.Sub("log"), release_->registry_path(),
                             testing::EnvObject(release_->Environment(), {{"LAS_AGENT_ID", "onboarding-agent"},
                                                                          {"LAS_DEFAULT_AGENT_GRANT", "none"}}),
                             {Onboarding({{"action", "mark"}, {"step", "surfaces"}}),
                              Onboarding({{"action", "reset"}, {"step", "trust-store"}}),
                              Onboarding(json::object())});
  };
  auto without = serve();
  ASSERT_EQ(without.exit_code, 0) << without.err;
  ASSERT_EQ(without.steps.size(), 3u) << without.err;
  EXPECT_EQ(testing::StepText(without.steps[0]), "Refused: no-root-grant");
  EXPECT_EQ(testing::StepText(without.steps[1]), "Refused: no-root-grant");
  EXPECT_EQ(Row(Journey(without.steps[2]), "surfaces")["status"], "pending");
  auto denied = testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 2u) << json(denied).dump();
  EXPECT_EQ(denied[0]["payload"]["reason"], "no-root-grant");

  auto granted = Cli({"grant", "onboarding-agent", "--all"});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  auto with = serve();
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(Row(Journey(with.steps[2]), "surfaces")["status"], "done");
  EXPECT_EQ(Row(Journey(with.steps[2]), "surfaces")["by"], "onboarding-agent");
}

// With the first call the next step and every served surface's source disabled, the advice
// says to enable one: the usual "call one surface__tool" would only be refused (probe CE1).
TEST_F(OnboardingE2eTest, TheFirstCallAdviceSaysToEnableASourceWhenEveryOneIsDisabled) {
  for (const char* step : {"trust-store", "key", "release", "surfaces"}) {
    auto marked = Cli({"onboarding", "mark", step});
    ASSERT_EQ(marked.exit_code, 0) << step << ": " << marked.err;
  }
  auto disabled = Cli({"sources", "disable", "echo", "--reason", "maintenance"});
  ASSERT_EQ(disabled.exit_code, 0) << disabled.err;
  auto run = Serve({Onboarding(json::object())});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json journey = Journey(run.steps[0]);
  EXPECT_EQ(journey["current"], "first-call");
  const std::string next = journey["next"].get<std::string>();
  EXPECT_NE(next.find("las sources enable NAME"), std::string::npos) << next;
  EXPECT_EQ(Row(journey, "first-call")["next"], journey["next"]);

  auto enabled = Cli({"sources", "enable", "echo"});
  ASSERT_EQ(enabled.exit_code, 0) << enabled.err;
  const json usual = Journey(Serve({Onboarding(json::object())}).steps.at(0));
  EXPECT_NE(usual["next"].get<std::string>().find("call one surface__tool"), std::string::npos)
      << usual.dump();
}

TEST_F(OnboardingE2eTest, HalfFromTheCliHalfFromAnMcpClientOneStateThatSurvivesRestart) {
  // The operator starts on the command line, before any server ran.
  auto checked = Cli({"onboarding", "check", "trust-store"});
  ASSERT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  auto marked = Cli({"onboarding", "mark", "key"});
  ASSERT_EQ(marked.exit_code, 0) << marked.err;

  // The agent continues through the running server.
  auto run = Serve({Onboarding(json::object()),
                    Onboarding({{"action", "check"}, {"step", "release"}}),
                    Onboarding({{"action", "check"}, {"step", "surfaces"}}),
                    testing::CallStep("echo__echo", {{"message", "hi"}}),
                    Onboarding({{"action", "check"}, {"step", "first-call"}}),
                    Onboarding({{"action", "mark"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps.size(), 6u) << run.err;

  const json first = Journey(run.steps[0]);
  EXPECT_EQ(Row(first, "trust-store")["status"], "done") << "the CLI's check, seen by the client";
  EXPECT_TRUE(Row(first, "trust-store")["by"].is_null());
  EXPECT_EQ(Row(first, "key")["detail"], "marked");
  // The server's admission (ReleaseAccepted) completed the release step by itself, and the
  // surface's row (SurfaceAdmitted); "surfaces", every surface of the release, is the check's.
  EXPECT_EQ(Row(first, "release")["status"], "done");
  EXPECT_NE(Row(first, "release")["detail"].get<std::string>().find("a server accepted release 1"),
            std::string::npos) << first.dump();
  EXPECT_EQ(Row(first, "surface:echo")["status"], "done") << first.dump();
  EXPECT_EQ(first["current"], "surfaces");

  const json release = Journey(run.steps[1]);
  ASSERT_EQ(release["checked"].size(), 1u);
  EXPECT_EQ(release["checked"][0]["result"], "ok") << release["checked"].dump();
  EXPECT_EQ(Row(release, "release")["status"], "done");
  EXPECT_EQ(Row(release, "release")["by"], "onboarding-agent");

  const json surfaces = Journey(run.steps[2]);
  EXPECT_EQ(Row(surfaces, "surfaces")["status"], "done") << surfaces.dump();
  EXPECT_EQ(Row(surfaces, "surface:echo")["status"], "done") << surfaces.dump();
  EXPECT_EQ(surfaces["current"], "first-call");

  EXPECT_EQ(run.steps[3]["ok"], true) << run.steps[3].dump();
  // The call's completion is written just after its answer; a check is answered only after
  // its own events are written, which come after it, so it sees the call.
  const json after_call = Journey(run.steps[4]);
  EXPECT_EQ(after_call["checked"][0]["result"], "ok") << after_call["checked"].dump();
  EXPECT_EQ(Row(after_call, "first-call")["status"], "done");
  EXPECT_EQ(Row(after_call, "first-call")["by"], "onboarding-agent");
  EXPECT_EQ(after_call["complete"], true);

  // mark without a step: refused by the input schema, and the refusal is an event.
  EXPECT_EQ(run.steps[5]["ok"], false);
  EXPECT_EQ(run.steps[5]["error"]["code"], -32602);
  auto denied = testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u) << json(denied).dump();
  const json& denial = denied[0];
  EXPECT_EQ(denial["payload"]["tool"], "onboarding");
  EXPECT_EQ(denial["payload"]["reason"], "arguments-schema-violation");

  // The CLI, after the server stopped, sees exactly what the client saw last.
  EXPECT_EQ(Shared(CliStatus()), Shared(after_call));

  // The operator resets a step from the CLI; a restarted server's client sees it.
  auto reset = Cli({"onboarding", "reset", "first-call"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  const json cli_after_reset = CliStatus();
  EXPECT_EQ(cli_after_reset["current"], "first-call");

  auto restarted = Serve({Onboarding(json::object()),
                          testing::CallStep("echo__echo", {{"message", "again"}})});
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  ASSERT_EQ(restarted.steps.size(), 2u);
  const json reopened = Journey(restarted.steps[0]);
  EXPECT_EQ(Shared(reopened), Shared(cli_after_reset)) << "same state after restart";
  EXPECT_EQ(Row(reopened, "first-call")["reason"], "operator-reset");
  for (const auto& name : {"trust-store", "key", "release", "surfaces", "surface:echo"}) {
    EXPECT_EQ(Row(reopened, name), Row(after_call, name)) << name << " survived the restart";
  }
  EXPECT_EQ(restarted.steps[1]["ok"], true) << restarted.steps[1].dump();

  // The successful call completed the step by itself (the ledger), seen from the CLI once
  // the server has ended (it writes everything before it exits).
  const json done_again = CliStatus();
  EXPECT_EQ(Row(done_again, "first-call")["status"], "done");
  EXPECT_EQ(Row(done_again, "first-call")["by"], "onboarding-agent");
  EXPECT_EQ(Row(done_again, "first-call")["detail"].get<std::string>().rfind("call ", 0), 0u)
      << Row(done_again, "first-call").dump();
  EXPECT_EQ(done_again["complete"], true);
}

// Every agent may check, and a check launches every surface's child: at most two run at
// once per server, a third is refused at once and records nothing (probe O2-1: 120 checks
// ran 123 threads and 80 children).
TEST_F(OnboardingE2eTest, AtMostTwoChecksRunAtOnce) {
  testing::ChildProcess las(testing::LasArgvWithEnv(
      release_->Environment(),
      {"serve", "--log", tmp_.Sub("log"), "--registry", release_->registry_path()}));
  las.WriteLine(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"stranger"}})");
  ASSERT_TRUE(las.ReadLine().has_value());
  std::string burst;
  for (int id = 1; id <= 4; ++id) {
    burst += json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                  {"params", {{"name", "las__onboarding"},
                              {"arguments", {{"action", "check"}, {"step", "surfaces"}}}}}}
                 .dump() +
             "\n";
  }
  burst.pop_back();
  las.WriteLine(burst);
  int checked = 0;
  int busy = 0;
  for (int i = 0; i < 4; ++i) {
    auto line = las.ReadLine(std::chrono::seconds(120));
    ASSERT_TRUE(line.has_value());
    const json answer = json::parse(*line);
    if (answer.contains("result")) ++checked;
    if (answer.contains("error")) {
      EXPECT_EQ(answer["error"]["message"], "Too many onboarding checks running; retry later");
      ++busy;
    }
  }
  EXPECT_EQ(checked, 2);
  EXPECT_EQ(busy, 2);
  las.CloseStdin();
  EXPECT_EQ(las.Wait(), 0);
  // Each check that ran recorded the surfaces step once; the refused ones nothing.
  size_t recorded = 0;
  for (const json& event : testing::ReplayEvents(
           tmp_.Sub("log"), {"--kind", "OnboardingStepCompleted", "--kind", "OnboardingStepReset"})) {
    if (event["payload"]["step"] == "surfaces") ++recorded;
  }
  EXPECT_EQ(recorded, 2u);
}

}  // namespace
}  // namespace las
