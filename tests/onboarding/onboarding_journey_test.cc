// The journey: step order, the current step and what to do next, and each step's real
// check against real files, a real signed release (Ed25519) and real python children,
// with an injected clock for expiry. Results become events that fold back into the view.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "log/envelope.h"
#include "reducers/onboarding.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/temp_dir.h"
#include "tools/onboarding_journey.h"
#include "tools/registry.h"

namespace las::tools {
namespace {

const std::string kStandIn = std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py";

reducers::Onboarding Fold(const std::vector<log::EventDraft>& drafts,
                          reducers::Onboarding state = {}, uint64_t first = 1) {
  uint64_t sequence = first;
  for (const auto& draft : drafts) {
    reducers::Apply(state, sequence++, *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
  return state;
}

const StepResult* Find(const std::vector<StepResult>& results, std::string_view step) {
  for (const auto& result : results) {
    if (result.step == step) return &result;
  }
  return nullptr;
}

TEST(OnboardingJourney, StepsInOrderAndTheCurrentOneIsTheFirstNotDone) {
  std::vector<std::string> names;
  for (const auto& step : OnboardingSteps()) names.emplace_back(step.name);
  EXPECT_EQ(names, (std::vector<std::string>{"trust-store", "key", "release", "surfaces",
                                             "first-call"}));
  JourneyView view = ViewJourney({});
  EXPECT_EQ(view.current, "trust-store");
  EXPECT_NE(view.next.find("las release keygen"), std::string::npos) << view.next;
  EXPECT_NE(view.next.find("LAS_TRUST_STORE"), std::string::npos) << view.next;
  for (const auto& row : view.steps) EXPECT_EQ(row.status, "pending") << row.step;

  const Actor op;
  auto state = Fold({MarkEvent("trust-store", op), MarkEvent("key", op)});
  view = ViewJourney(state);
  EXPECT_EQ(view.current, "release");
  EXPECT_NE(view.next.find("las release sign"), std::string::npos) << view.next;
  EXPECT_EQ(view.steps[0].status, "done");
  EXPECT_EQ(view.steps[0].detail, "marked");
  EXPECT_EQ(view.steps[0].next, "");

  // Marking a later step does not move the current one past an earlier gap.
  state = Fold({MarkEvent("first-call", op)}, state, 3);
  EXPECT_EQ(ViewJourney(state).current, "release");
  for (const auto& step : {"release", "surfaces"}) state = Fold({MarkEvent(step, op)}, state, 9);
  view = ViewJourney(state);
  EXPECT_TRUE(view.complete());
  EXPECT_EQ(view.next, "");

  // An operator reset is pending; a failed check is failed, with its reason's advice.
  state = Fold({ResetEvent("key", op)}, state, 20);
  view = ViewJourney(state);
  EXPECT_EQ(view.current, "key");
  EXPECT_EQ(view.steps[1].status, "pending");
  EXPECT_EQ(view.steps[1].reason, "operator-reset");
  state = Fold(CheckEvents({{"key", false, "file-permissions", "mode 0644"}}, op), state, 21);
  view = ViewJourney(state);
  EXPECT_EQ(view.steps[1].status, "failed");
  EXPECT_EQ(view.steps[1].reason, "file-permissions");
  EXPECT_NE(view.next.find("chmod 600"), std::string::npos) << view.next;

  // A store keygen would refuse to extend is never answered with keygen alone (probe E4).
  for (const char* reason : {"file-symlink", "file-not-regular", "trust-store-invalid", "file-too-large"}) {
    state = Fold(CheckEvents({{"trust-store", false, reason, "detail"}}, op), state, 22);
    view = ViewJourney(state);
    ASSERT_EQ(view.current, "trust-store") << reason;
    EXPECT_TRUE(view.next.find("readlink -f") != std::string::npos ||
                view.next.find("move it away") != std::string::npos)
        << reason << ": " << view.next;
  }
}

// Probe K: the advice for these failures led nowhere (--bump may stay below the watermark;
// a missing watermark directory and a no-surfaces release got the generic text).
TEST(OnboardingJourney, ReleaseAndSurfacesFailuresGetAdviceThatFixesThem) {
  const Actor op;
  auto state = Fold({MarkEvent("trust-store", op), MarkEvent("key", op)});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rollback", "--sequence N"}, {"conflict", "las inspect watermarks"},
      {"io-error", "mkdir -p"}, {"file-permissions", "chmod 600 \"$LAS_RELEASE_WATERMARK\""},
      {"file-symlink", "readlink -f"}};
  uint64_t sequence = 3;
  for (const auto& [reason, advice] : cases) {
    state = Fold(CheckEvents({{"release", false, reason, "detail"}}, op), state, sequence++);
    const JourneyView view = ViewJourney(state);
    ASSERT_EQ(view.current, "release") << reason;
    EXPECT_NE(view.next.find(advice), std::string::npos) << reason << ": " << view.next;
    EXPECT_EQ(view.next.find("--bump"), std::string::npos) << reason << ": " << view.next;
  }
  // The key to sign with is the one the trust store selects, which after a rotation is not
  // the first key's file (probe BA1): the advice names how to find it.
  for (const char* reason : {"expired", "rollback"}) {
    state = Fold(CheckEvents({{"release", false, reason, "detail"}}, op), state, sequence++);
    const JourneyView view = ViewJourney(state);
    EXPECT_NE(view.next.find("--secret-key SECRET_KEY (the release.key that keygen wrote beside "
                             "the key the trust store selects, which las release verify names"),
              std::string::npos)
        << reason << ": " << view.next;
  }
  state = Fold({MarkEvent("release", op)}, state, sequence++);
  state = Fold(CheckEvents({{"surfaces", false, "no-surfaces", "detail"}}, op), state, sequence++);
  const JourneyView view = ViewJourney(state);
  ASSERT_EQ(view.current, "surfaces");
  EXPECT_NE(view.next.find("--registry"), std::string::npos) << view.next;
  // A launch's unset variable: its export (probe FP3: the generic advice named none).
  state = Fold(CheckEvents({{"surfaces", false, "not-configured", "launch: LAS_WORKSPACE is not set"}}, op),
               state, sequence++);
  EXPECT_EQ(ViewJourney(state).next,
            "export LAS_WORKSPACE=/an/absolute/path, then: las onboarding check surfaces");
  state = Fold(CheckEvents({{"surface:envy", false, "not-configured", "launch: LAS_WORKSPACE is not set"}}, op),
               state, sequence++);
  const JourneyView with_surface = ViewJourney(state);
  ASSERT_FALSE(with_surface.surfaces.empty());
  EXPECT_EQ(with_surface.surfaces.back().next,
            "export LAS_WORKSPACE=/an/absolute/path, then: las onboarding check surfaces")
      << "a surface's row as the step's (probe FS7)";
  state = Fold(CheckEvents({{"release", false, "not-configured", "LAS_RELEASE_WATERMARK is not set"}}, op),
               state, sequence++);
  EXPECT_NE(ViewJourney(state).next.find("export LAS_RELEASE_WATERMARK=/an/absolute/path"),
            std::string::npos)
      << ViewJourney(state).next;
}

// A check's results come from the CLI over the operator channel, whose peer could send
// anything: a row no check made, megabytes of detail (probe CD3).
TEST(OnboardingJourney, ACheckRecordsOnlyResultsForKnownStepsWithBoundedText) {
  const Actor operator_actor{"", ""};
  auto plan = [&](StepResult result) {
    return PlanOnboardingChange("check", "", {std::move(result)}, operator_actor);
  };
  EXPECT_TRUE(plan({"key", true, "accepted", "ok"}).ok());
  EXPECT_TRUE(plan({"surface:echo", false, "start-failed", "exit 3"}).ok());
  for (const char* step : {"bogus", "surface:", "surface:a__b", "surface:Echo", ""}) {
    auto refused = plan({step, true, "accepted", "ok"});
    ASSERT_FALSE(refused.ok()) << step;
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << step;
  }
  EXPECT_FALSE(plan({"key", true, std::string(257, 'r'), ""}).ok());
  EXPECT_FALSE(plan({"key", true, "accepted", std::string(16 * 1024 + 1, 'd')}).ok());
  EXPECT_TRUE(plan({"key", true, "accepted", std::string(16 * 1024, 'd')}).ok());
  EXPECT_FALSE(plan({"key", false, "evil\x1b]0;pwned\x07", ""}).ok()) << "a reason is a code";
  auto escaped = plan({"key", true, "accepted", "x\x1b[31mred\xE2\x80\xAE"});
  ASSERT_TRUE(escaped.ok());
  const reducers::Onboarding state = Fold(*escaped);
  ASSERT_TRUE(state.steps.count("key"));
  EXPECT_EQ(state.steps.at("key").detail, "x\\u{001B}[31mred\\u{202E}");
}

TEST(OnboardingJourney, JsonHasTheStableFields) {
  const Actor agent{"agent-7", "session-1"};
  auto state = Fold({MarkEvent("trust-store", agent)});
  std::vector<StepResult> checked = {{"key", false, "file-missing", "no file"}};
  const auto doc = nlohmann::json::parse(JourneyJson(ViewJourney(state), "check", 42, &checked));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["action"], "check");
  EXPECT_EQ(doc["as_of_sequence"], 42);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["current"], "key");
  ASSERT_EQ(doc["steps"].size(), 5u);
  EXPECT_EQ(doc["steps"][0]["step"], "trust-store");
  EXPECT_EQ(doc["steps"][0]["status"], "done");
  EXPECT_EQ(doc["steps"][0]["by"], "agent-7");
  EXPECT_EQ(doc["steps"][0]["sequence"], 1);
  EXPECT_TRUE(doc["steps"][1]["by"].is_null());
  EXPECT_EQ(doc["checked"][0]["result"], "fail");
  EXPECT_EQ(doc["checked"][0]["reason"], "file-missing");
  EXPECT_TRUE(doc["surfaces"].is_array());
  EXPECT_FALSE(nlohmann::json::parse(JourneyJson(ViewJourney(state), "status", 1, nullptr))
                   .contains("checked"));
}

// A checked path from the environment need not be UTF-8: the document replaces what is
// not, instead of throwing — which aborted a server answering las__onboarding (probe EW2).
TEST(OnboardingJourney, JsonReplacesTextThatIsNotUtf8) {
  std::vector<StepResult> checked = {{"trust-store", false, "file-missing", "/tmp/x\xffy/trust.json"}};
  std::string text;
  ASSERT_NO_THROW(text = JourneyJson(ViewJourney({}), "check", 1, &checked));
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["checked"][0]["detail"], "/tmp/x\xEF\xBF\xBDy/trust.json");
}

class OnboardingChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    const std::string stand_in = release_->CopyIntoWorkspace(kStandIn, "stand_in.py");
    release_->AddSurface("echo", {"/usr/bin/python3", stand_in, "echo"});
    ASSERT_FALSE(HasFailure());
    release_->Sign(1, 3600);
    for (const auto& entry : release_->Environment()) {
      auto eq = entry.find('=');
      options_.environment[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    auto registry = LoadRegistry(release_->registry_path());
    ASSERT_TRUE(registry.ok()) << registry.status().ToString();
    options_.registry = *registry;
    options_.node_executable = options_.environment["LAS_NODE"];
    clock_.Set(SystemWallClock().NowMicros());
    options_.clock = &clock_;
  }
  std::vector<StepResult> Check(std::string_view step, const reducers::Onboarding& state = {}) {
    return CheckOnboardingSteps(step, options_, state);
  }
  std::string TrustStore() { return options_.environment["LAS_TRUST_STORE"]; }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
  OnboardingCheckOptions options_;
  ManualClock clock_;
};

TEST_F(OnboardingChecks, TrustStoreAndKeyPassForASafeStore) {
  auto results = Check("trust-store");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].passed) << results[0].reason << ": " << results[0].detail;
  EXPECT_EQ(results[0].reason, "accepted");
  results = Check("key");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].passed) << results[0].detail;
  EXPECT_NE(results[0].detail.find("selects key"), std::string::npos) << results[0].detail;
}

TEST_F(OnboardingChecks, TrustStoreRefusals) {
  options_.environment.erase("LAS_TRUST_STORE");
  EXPECT_EQ(Check("trust-store")[0].reason, "not-configured");
  EXPECT_EQ(Check("key")[0].reason, "not-configured");
  options_.environment["LAS_TRUST_STORE"] = "relative/trust.json";
  EXPECT_EQ(Check("trust-store")[0].reason, "not-absolute");
  options_.environment["LAS_TRUST_STORE"] = tmp_.Sub("missing.json");
  EXPECT_EQ(Check("trust-store")[0].reason, "file-missing");

  SetUp();  // a fresh environment
  ASSERT_EQ(::chmod(TrustStore().c_str(), 0644), 0);
  auto results = Check("trust-store");
  EXPECT_FALSE(results[0].passed);
  EXPECT_EQ(results[0].reason, "file-permissions");
  ASSERT_EQ(::chmod(TrustStore().c_str(), 0600), 0);
  { std::ofstream(TrustStore(), std::ios::trunc) << "{\"schema_version\": 1}"; }
  EXPECT_TRUE(Check("trust-store")[0].passed) << "present and safe; the content is the key step's";
  EXPECT_EQ(Check("key")[0].reason, "trust-store-invalid");
}

TEST_F(OnboardingChecks, ReleaseVerifiesAndExpiresByTheInjectedClock) {
  auto results = Check("release");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].passed) << results[0].reason << ": " << results[0].detail;
  EXPECT_NE(results[0].detail.find("sequence 1"), std::string::npos) << results[0].detail;
  EXPECT_NE(results[0].detail.find("surfaces: echo"), std::string::npos) << results[0].detail;

  clock_.Advance(2 * 3600 * 1'000'000LL);
  results = Check("release");
  EXPECT_FALSE(results[0].passed);
  EXPECT_EQ(results[0].reason, "expired");

  options_.environment.erase("LAS_RELEASE_SIGNATURE");
  EXPECT_EQ(Check("release")[0].reason, "not-configured");
}

// The release step decides as admission on the log would: the log's recorded watermark
// refuses a release the watermark file lets through (probe CX3: recorded done, then `las
// serve` refused it as a rollback).
TEST_F(OnboardingChecks, ReleaseBelowTheLogsRecordedWatermarkFails) {
  const std::string detail = Check("release")[0].detail;
  const size_t at = detail.find("signed by key ");
  ASSERT_NE(at, std::string::npos) << detail;
  const std::string key_id = detail.substr(at + 14, detail.find(',', at) - at - 14);
  options_.recorded_watermarks.by_key[key_id] = trust::WatermarkEntry{2, trust::Sha256Digest{}};
  auto results = Check("release");
  EXPECT_FALSE(results[0].passed);
  EXPECT_EQ(results[0].reason, "rollback") << results[0].detail;
  EXPECT_NE(results[0].detail.find("as the log recorded it"), std::string::npos) << results[0].detail;
  options_.recorded_watermarks.by_key[key_id] = trust::WatermarkEntry{1, trust::Sha256Digest{}};
  EXPECT_EQ(Check("release")[0].reason, "conflict") << "sequence 1 recorded with other bytes";
}

TEST_F(OnboardingChecks, SurfacesLaunchTheRealChildrenAndRecordEachSurface) {
  auto results = Check("surfaces");
  const StepResult* echo = Find(results, "surface:echo");
  const StepResult* surfaces = Find(results, "surfaces");
  ASSERT_NE(echo, nullptr);
  ASSERT_NE(surfaces, nullptr);
  EXPECT_TRUE(echo->passed) << echo->reason << ": " << echo->detail;
  EXPECT_TRUE(surfaces->passed) << surfaces->reason << ": " << surfaces->detail;
  EXPECT_EQ(results.back().step, "surfaces") << "the aggregate comes after its surfaces";
  EXPECT_EQ(results.size(), 2u) << "configured-but-unbound surfaces are not part of it";

  // A change to the signed code: fails closed, with the launch reason.
  { std::ofstream(release_->workspace() + "/stand_in.py", std::ios::app) << "# changed\n"; }
  results = Check("surfaces");
  echo = Find(results, "surface:echo");
  surfaces = Find(results, "surfaces");
  ASSERT_NE(echo, nullptr);
  ASSERT_NE(surfaces, nullptr);
  EXPECT_FALSE(echo->passed);
  EXPECT_EQ(echo->reason, "digest-mismatch");
  EXPECT_FALSE(surfaces->passed);
  EXPECT_EQ(surfaces->reason, "digest-mismatch");
  EXPECT_NE(surfaces->detail.find("echo"), std::string::npos) << surfaces->detail;

  // Recorded, the view shows both.
  auto state = Fold(CheckEvents(results, {}));
  const JourneyView view = ViewJourney(state);
  ASSERT_EQ(view.surfaces.size(), 1u);
  EXPECT_EQ(view.surfaces[0].step, "surface:echo");
  EXPECT_EQ(view.surfaces[0].status, "failed");
  EXPECT_EQ(view.steps[3].status, "failed");
}

TEST_F(OnboardingChecks, SurfacesWithoutAVerifiedReleaseFailWithTheReleaseReason) {
  options_.environment["LAS_RELEASE_SIGNATURE"] = tmp_.Sub("nosuch.sig");
  auto results = Check("surfaces");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].passed);
  EXPECT_EQ(results[0].reason, "file-missing");
}

// Admission refuses a release whose watermark cannot move (`las release verify`, `las check`
// and `las serve` all say io-error); the journey said "accepted" and sent the user on to a
// first call no server could take.
TEST_F(OnboardingChecks, AWatermarkThatCannotMoveFailsTheReleaseAndSurfaces) {
  options_.environment["LAS_RELEASE_WATERMARK"] = tmp_.Sub("no-such-dir") + "/watermark.json";
  auto release = Check("release");
  ASSERT_EQ(release.size(), 1u);
  EXPECT_FALSE(release[0].passed);
  EXPECT_EQ(release[0].reason, "io-error");
  EXPECT_NE(release[0].detail.find("no-such-dir"), std::string::npos) << release[0].detail;
  const auto surfaces = Check("surfaces");
  ASSERT_FALSE(surfaces.empty());
  EXPECT_EQ(surfaces.back().step, "surfaces");
  EXPECT_FALSE(surfaces.back().passed) << "nothing of this release would be served";
  EXPECT_EQ(surfaces.back().reason, "io-error");
}

TEST_F(OnboardingChecks, FirstCallReadsTheLedgerState) {
  auto results = Check("first-call");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].reason, "no-successful-call");
  reducers::Onboarding state;
  state.ok_calls = 2;
  results = Check("first-call", state);
  EXPECT_TRUE(results[0].passed);
  EXPECT_NE(results[0].detail.find("2 successful calls"), std::string::npos);
}

TEST_F(OnboardingChecks, CheckingEveryStepCompletesTheJourneyButTheFirstCall) {
  auto results = Check("");
  std::vector<std::string> steps;
  for (const auto& r : results) steps.push_back(r.step);
  EXPECT_EQ(steps, (std::vector<std::string>{"trust-store", "key", "release", "surface:echo",
                                             "surfaces", "first-call"}));
  auto state = Fold(CheckEvents(results, {}));
  const JourneyView view = ViewJourney(state);
  EXPECT_EQ(view.current, "first-call");
  EXPECT_EQ(view.steps[4].status, "failed");
  EXPECT_EQ(view.steps[4].reason, "no-successful-call");
  EXPECT_TRUE(Check("no-such-step").empty());
}

}  // namespace
}  // namespace las::tools
