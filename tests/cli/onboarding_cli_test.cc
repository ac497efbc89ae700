// `las onboarding`: the real binary on a real log — status (also with no log yet and while
// a writer holds the log), check with a real trust store made by `las release keygen`,
// mark, reset, usage errors, and the documented "locked" exit while a writer holds it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

class OnboardingCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(tmp_.Sub("state"));
    std::filesystem::permissions(tmp_.Sub("state"), std::filesystem::perms::owner_all);
  }
  testing::CommandResult Las(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    args.push_back("--log");
    args.push_back(log_dir());
    return testing::RunCommand(args, env);
  }
  json Status() {
    auto result = Las({"onboarding", "status", "--json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
  }
  static const json& Step(const json& doc, const std::string& name) {
    for (const auto& step : doc["steps"]) {
      if (step["step"] == name) return step;
    }
    static const json none;
    return none;
  }
  std::string log_dir() const { return tmp_.Sub("log"); }
  std::string trust_store() const { return tmp_.Sub("state") + "/trust.json"; }
  std::string TrustEnv() const { return "LAS_TRUST_STORE=" + trust_store(); }

  testing::TempDir tmp_;
};

TEST_F(OnboardingCliTest, StatusWithNoLogShowsTheJourneyFromItsStart) {
  auto result = Las({"onboarding", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json doc = json::parse(result.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["current"], "trust-store");
  EXPECT_EQ(doc["complete"], false);
  ASSERT_EQ(doc["steps"].size(), 5u);
  for (const auto& step : doc["steps"]) EXPECT_EQ(step["status"], "pending");
  EXPECT_FALSE(std::filesystem::exists(log_dir())) << "status never creates a log";

  auto table = Las({"onboarding"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("STEP         STATUS   REASON  BY  SEQ  DETAIL"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("las onboarding: current step trust-store: "), std::string::npos)
      << table.out;
}

TEST_F(OnboardingCliTest, CheckMarkAndResetAreRecordedAsEvents) {
  // No trust store configured: the check fails, exit 1, recorded with its reason.
  auto failed = Las({"onboarding", "check", "trust-store", "--json"});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  json doc = json::parse(failed.out);
  EXPECT_EQ(doc["checked"][0]["reason"], "not-configured");
  EXPECT_EQ(Step(doc, "trust-store")["status"], "failed");
  EXPECT_EQ(Step(doc, "trust-store")["sequence"], 1);

  // A real trust store from `las release keygen`: both trust steps pass.
  auto keygen = testing::RunCommand({LAS_EXECUTABLE, "release", "keygen", "--out-dir",
                                     tmp_.Sub("keys"), "--trust-store", trust_store()});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  auto ok = Las({"onboarding", "check", "trust-store"}, {TrustEnv()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("ok    trust-store"), std::string::npos) << ok.out;
  ok = Las({"onboarding", "check", "key"}, {TrustEnv()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

  doc = Status();
  EXPECT_EQ(Step(doc, "trust-store")["status"], "done");
  EXPECT_TRUE(Step(doc, "trust-store")["by"].is_null()) << "the CLI acts as the operator";
  EXPECT_NE(Step(doc, "key")["detail"].get<std::string>().find("selects key"), std::string::npos);
  EXPECT_EQ(doc["current"], "release");

  // Permissions opened up: the re-check resets the step with the reason code.
  ASSERT_EQ(::chmod(trust_store().c_str(), 0640), 0);
  auto unsafe = Las({"onboarding", "check", "trust-store", "--json"}, {TrustEnv()});
  EXPECT_EQ(unsafe.exit_code, 1);
  doc = json::parse(unsafe.out);
  EXPECT_EQ(Step(doc, "trust-store")["reason"], "file-permissions");
  EXPECT_EQ(doc["current"], "trust-store");
  EXPECT_NE(doc["next"].get<std::string>().find("chmod 600"), std::string::npos) << doc["next"];
  // What the check found is recorded with the reset: a later status still shows it.
  const std::string found = Step(doc, "trust-store")["detail"];
  EXPECT_NE(found.find(trust_store()), std::string::npos) << found;
  EXPECT_EQ(Step(Status(), "trust-store")["detail"], found);

  // mark and reset.
  auto mark = Las({"onboarding", "mark", "release"});
  EXPECT_EQ(mark.exit_code, 0) << mark.err;
  doc = Status();
  EXPECT_EQ(Step(doc, "release")["status"], "done");
  EXPECT_EQ(Step(doc, "release")["detail"], "marked");
  auto reset = Las({"onboarding", "reset", "release"});
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  doc = Status();
  EXPECT_EQ(Step(doc, "release")["status"], "pending");
  EXPECT_EQ(Step(doc, "release")["reason"], "operator-reset");

  // Every action is an event in the log, in order.
  auto replay = testing::RunCommand({LAS_EXECUTABLE, "replay", "--log", log_dir(), "--kind",
                                     "OnboardingStepCompleted", "--kind", "OnboardingStepReset"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(testing::Lines(replay.out).size(), 6u) << replay.out;
}

// A release variable not set: the advice is that variable's export, not the list of every
// release variable (probe FI4: it named four that were set and not the missing one).
TEST_F(OnboardingCliTest, AnUnsetReleaseVariableIsTheOneTheAdviceExports) {
  auto failed = Las({"onboarding", "check", "release", "--json"});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  const json doc = json::parse(failed.out);
  const json release = Step(doc, "release");
  EXPECT_EQ(release["reason"], "not-configured") << release.dump();
  const std::string detail = release["detail"];
  ASSERT_EQ(detail.rfind("LAS_", 0), 0u) << detail;
  const std::string variable = detail.substr(0, detail.find(' '));
  EXPECT_EQ(release["next"].get<std::string>().rfind("export " + variable + "=", 0), 0u)
      << release["next"];
}

TEST_F(OnboardingCliTest, UnknownStepsAndMissingStepsAreUsageErrors) {
  auto unknown = Las({"onboarding", "mark", "bogus"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("trust-store, key, release, surfaces, first-call"), std::string::npos)
      << unknown.err;
  EXPECT_EQ(Las({"onboarding", "check", "bogus"}).exit_code, 2);
  EXPECT_EQ(Las({"onboarding", "check", ""}).exit_code, 2) << "not: every step (probe Y4)";
  EXPECT_EQ(Las({"onboarding", "reset"}).exit_code, 2) << "reset needs a step";
  // A bad --registry is refused before the log is opened (probe X4).
  EXPECT_EQ(Las({"onboarding", "check", "--registry", tmp_.Sub("missing.json")}).exit_code, 4);
  EXPECT_FALSE(std::filesystem::exists(log_dir())) << "nothing was written";
  auto odd = Las({"onboarding", "mark", "x\x1b[31my"});
  EXPECT_EQ(odd.err.find('\x1b'), std::string::npos) << "escaped: " << odd.err;
}

// An operator's path with a line break or an escape sequence reaches the check's detail
// and the recorded step: neither the check's lines nor the status table print it raw.
TEST_F(OnboardingCliTest, OddPathsInDetailsAreEscapedOnTheTerminal) {
  const std::string odd = "LAS_TRUST_STORE=" + tmp_.Sub("a\x1b[31mb\nc.json");
  auto check = Las({"onboarding", "check", "trust-store"}, {odd});
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_EQ(check.out.find('\x1b'), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("\\u{001B}"), std::string::npos) << check.out;
  auto status = Las({"onboarding", "status"});
  EXPECT_EQ(status.out.find('\x1b'), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\\u{001B}"), std::string::npos) << "the recorded detail: " << status.out;
}

// A path that is not UTF-8 is replaced in --json, not an abort (probe EW2: exit 134 after
// the check's event was written).
TEST_F(OnboardingCliTest, APathThatIsNotUtf8IsReplacedInJson) {
  const std::string odd = "LAS_TRUST_STORE=" + tmp_.Sub("x\xffy/trust.json");
  auto check = Las({"onboarding", "check", "trust-store", "--json"}, {odd});
  EXPECT_EQ(check.exit_code, 1) << check.err;
  const auto doc = nlohmann::json::parse(check.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << check.out;
  EXPECT_NE(doc["checked"][0]["detail"].get<std::string>().find("x\xEF\xBF\xBDy"), std::string::npos)
      << check.out;
}

TEST_F(OnboardingCliTest, MutationsWhileAWriterHoldsTheLogExitLockedAndStatusStillWorks) {
  auto writer = log::EventLog::Open(log_dir());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto mark = Las({"onboarding", "mark", "key"});
  EXPECT_EQ(mark.exit_code, 7) << mark.err;
  EXPECT_NE(mark.err.find("las__onboarding"), std::string::npos) << mark.err;
  EXPECT_NE(mark.err.find("\"step\": \"key\""), std::string::npos) << mark.err;
  // "(no daemon socket at PATH)", or "(no runtime directory DIR)" where none exists.
  EXPECT_NE(mark.err.find("meanwhile (no "), std::string::npos)
      << "names where the server was looked for (probe CH3): " << mark.err;
  EXPECT_EQ(Las({"onboarding", "check"}).exit_code, 7);
  auto status = Las({"onboarding", "status", "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(json::parse(status.out)["as_of_sequence"], 0) << "nothing was appended";
}

}  // namespace
}  // namespace las
