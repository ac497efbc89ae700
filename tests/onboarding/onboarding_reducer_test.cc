// The onboarding reducer and projection: steps completed, reset and re-completed; the
// first-call step derived from the call ledger; canonical JSON; digests equal across a
// live fold, a restart and a follower.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/event_builder.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/onboarding_projection.h"
#include "projections/projection_set.h"
#include "reducers/onboarding.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

log::EventDraft Completed(const std::string& step, const std::string& detail,
                          const std::string& agent = "") {
  log::EventBuilder b;
  auto payload = fb::CreateOnboardingStepCompletedDirect(b.fbb(), step.c_str(), detail.c_str());
  return b.Finish(payload, agent, agent.empty() ? "" : "session-1");
}

log::EventDraft Reset(const std::string& step, const std::string& reason,
                      const std::string& agent = "", const std::string& detail = "") {
  log::EventBuilder b;
  auto payload =
      fb::CreateOnboardingStepResetDirect(b.fbb(), step.c_str(), reason.c_str(), detail.c_str());
  return b.Finish(payload, agent, "");
}

log::EventDraft Requested(const std::string& call_id, const std::string& surface,
                          const std::string& tool) {
  log::EventBuilder b;
  auto payload = fb::CreateToolCallRequestedDirect(b.fbb(), call_id.c_str(), surface.c_str(),
                                                   tool.c_str(), "", "{}", 2, false, "1");
  return b.Finish(payload, "agent-a", "session-1");
}

log::EventDraft Finished(const std::string& call_id, fb::CallOutcome outcome) {
  log::EventBuilder b;
  auto payload = fb::CreateToolCallCompletedDirect(b.fbb(), call_id.c_str(), outcome, "{}", 2,
                                                   false, 10, "");
  return b.Finish(payload, "agent-a", "session-1");
}

log::EventDraft ReleaseAccepted(uint64_t release_sequence) {
  log::EventBuilder b;
  auto payload = fb::CreateReleaseAcceptedDirect(b.fbb(), "key-1", release_sequence);
  return b.Finish(payload, "", "");
}

log::EventDraft SurfaceAdmitted(const std::string& surface) {
  log::EventBuilder b;
  auto payload = fb::CreateSurfaceAdmittedDirect(b.fbb(), surface.c_str(), "key-1", 3);
  return b.Finish(payload, "", "");
}

reducers::Onboarding Fold(const std::vector<log::EventDraft>& drafts) {
  reducers::Onboarding state;
  uint64_t sequence = 0;
  for (const auto& draft : drafts) {
    reducers::Apply(state, ++sequence,
                    *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
  return state;
}

TEST(OnboardingReducer, CompletionResetAndCompletionAgain) {
  std::vector<log::EventDraft> events;
  events.push_back(Completed("trust-store", "ok: /x/trust.json"));
  events.push_back(Reset("trust-store", "file-permissions", "agent-b", "/x/trust.json is mode 0640"));
  auto state = Fold(events);
  const auto& step = state.steps.at("trust-store");
  EXPECT_FALSE(step.done);
  EXPECT_EQ(step.reason, "file-permissions");
  EXPECT_EQ(step.detail, "/x/trust.json is mode 0640") << "what the failed check found";
  EXPECT_EQ(step.by, "agent-b");
  EXPECT_EQ(step.sequence, 2u);
  EXPECT_EQ(step.completions, 1u);
  EXPECT_EQ(step.resets, 1u);

  events.push_back(Completed("trust-store", "marked"));
  state = Fold(events);
  const auto& again = state.steps.at("trust-store");
  EXPECT_TRUE(again.done);
  EXPECT_EQ(again.detail, "marked");
  EXPECT_EQ(again.reason, "") << "a completion clears the reason of the reset before it";
  EXPECT_EQ(again.by, "");
  EXPECT_EQ(again.sequence, 3u);
  EXPECT_EQ(again.completions, 2u);

  events.push_back(Reset("trust-store", "operator-reset"));
  EXPECT_EQ(Fold(events).steps.at("trust-store").detail, "") << "an operator's reset has none";
}

TEST(OnboardingReducer, FirstSuccessfulChildCallCompletesTheFirstCallStep) {
  std::vector<log::EventDraft> events;
  events.push_back(Requested("c1", "echo", "echo"));
  events.push_back(Finished("c1", fb::CallOutcome::ToolError));
  events.push_back(Requested("c2", "las", "onboarding"));  // Las's own tool: not a first call
  events.push_back(Finished("c2", fb::CallOutcome::Ok));
  events.push_back(Finished("unknown", fb::CallOutcome::Ok));  // never requested
  events.push_back(Requested("c3", "echo", "echo"));
  auto state = Fold(events);
  EXPECT_EQ(state.steps.count("first-call"), 0u);
  EXPECT_EQ(state.ok_calls, 0u);
  EXPECT_EQ(state.open_calls.size(), 1u) << "c3 is still open";
  EXPECT_EQ(state.open_calls.at("c3"), "echo__echo");

  events.push_back(Finished("c3", fb::CallOutcome::Ok));
  state = Fold(events);
  ASSERT_EQ(state.steps.count("first-call"), 1u);
  const auto& step = state.steps.at("first-call");
  EXPECT_TRUE(step.done);
  EXPECT_EQ(step.detail, "call c3 to echo__echo succeeded");
  EXPECT_EQ(step.by, "agent-a");
  EXPECT_EQ(step.sequence, 7u);
  EXPECT_EQ(state.ok_calls, 1u);
  EXPECT_TRUE(state.open_calls.empty());

  // A second call does not move a done step; after a reset the next one completes it again.
  events.push_back(Requested("c4", "echo", "dashboard"));
  events.push_back(Finished("c4", fb::CallOutcome::Ok));
  state = Fold(events);
  EXPECT_EQ(state.steps.at("first-call").sequence, 7u);
  EXPECT_EQ(state.ok_calls, 2u);
  events.push_back(Reset("first-call", "operator-reset"));
  events.push_back(Requested("c5", "echo", "content_stats"));
  events.push_back(Finished("c5", fb::CallOutcome::Ok));
  state = Fold(events);
  EXPECT_TRUE(state.steps.at("first-call").done);
  EXPECT_EQ(state.steps.at("first-call").detail, "call c5 to echo__content_stats succeeded");
  EXPECT_EQ(state.steps.at("first-call").completions, 2u);

  // A check that read the ledger before c5's completion was written: stale, ignored.
  events.push_back(Reset("first-call", "no-successful-call", "agent-a"));
  state = Fold(events);
  EXPECT_TRUE(state.steps.at("first-call").done);
  EXPECT_EQ(state.steps.at("first-call").resets, 1u);
  // With no successful call at all the same reset is a real failure.
  const auto fresh = Fold({Reset("first-call", "no-successful-call")});
  EXPECT_FALSE(fresh.steps.at("first-call").done);
  EXPECT_EQ(fresh.steps.at("first-call").reason, "no-successful-call");
}

// Probe K1: after a whole first release and a served call, the journey still said "create
// the trust store", though the log held the server's acceptance of the release.
TEST(OnboardingReducer, AServersAdmissionCompletesTheStepsItProvesWithoutUndoingOthers) {
  auto state = Fold({Reset("key", "file-permissions"), Completed("release", "marked"),
                     ReleaseAccepted(3), SurfaceAdmitted("echo"), ReleaseAccepted(4)});
  ASSERT_TRUE(state.steps.at("trust-store").done);
  EXPECT_EQ(state.steps.at("trust-store").detail, "a server accepted release 3 signed by key key-1");
  EXPECT_EQ(state.steps.at("trust-store").completions, 1u) << "the second acceptance changes nothing";
  EXPECT_TRUE(state.steps.at("key").done) << "a failed check is overtaken by a later acceptance";
  EXPECT_EQ(state.steps.at("key").sequence, 3u);
  EXPECT_EQ(state.steps.at("release").detail, "marked") << "a done step keeps its completion";
  EXPECT_EQ(state.steps.at("surface:echo").detail, "a server admitted it (release 3)");
  EXPECT_FALSE(state.steps.contains("surfaces")) << "every surface of the release is the check's";
  EXPECT_FALSE(state.steps.contains("first-call"));
}

TEST(OnboardingProjection, CanonicalJsonIsFixed) {
  projections::ProjectionSet set;
  const auto* projection = set.Find("onboarding");
  ASSERT_NE(projection, nullptr) << "registered in the projection set";
  EXPECT_EQ(projection->CanonicalJson(), R"({"ok_calls":0,"open_calls":{},"steps":{}})");

  projections::OnboardingProjection p;
  std::vector<log::EventDraft> events;
  events.push_back(Completed("key", "selects \"k\"", "a"));
  events.push_back(Requested("c1", "echo", "echo"));
  uint64_t sequence = 0;
  for (const auto& draft : events) {
    p.Apply(++sequence, log::Hash{}, *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
  EXPECT_EQ(p.CanonicalJson(),
            R"({"ok_calls":0,"open_calls":{"c1":"echo__echo"},"steps":{"key":{"by":"a",)"
            R"("completions":1,"detail":"selects \"k\"","done":true,"reason":"","resets":0,)"
            R"("sequence":1,"time_micros":0}}})");
}

TEST(OnboardingProjection, SnapshotStateRoundTripsAndATruncatedOneIsRefused) {
  projections::OnboardingProjection p;
  std::vector<log::EventDraft> events;
  events.push_back(Completed("trust-store", "ok", "agent-a"));
  events.push_back(Reset("release", "expired"));
  events.push_back(Requested("c1", "echo", "echo"));
  events.push_back(Requested("c2", "echo", "dashboard"));
  events.push_back(Finished("c2", fb::CallOutcome::Ok));
  uint64_t sequence = 0;
  for (const auto& draft : events) {
    p.Apply(++sequence, log::Hash{}, *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
  std::string saved;
  ASSERT_TRUE(p.Save(saved));
  projections::OnboardingProjection restored;
  ASSERT_TRUE(restored.Restore(saved));
  EXPECT_EQ(restored.CanonicalJson(), p.CanonicalJson());
  EXPECT_EQ(projections::Digest(restored), projections::Digest(p));
  projections::OnboardingProjection truncated;
  EXPECT_FALSE(truncated.Restore(std::string_view(saved).substr(0, saved.size() - 1)));
}

std::vector<std::pair<std::string, std::string>> FoldDigests(log::EventCursor& cursor) {
  projections::ProjectionSet set;
  while (true) {
    auto more = cursor.Next();
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    set.Apply(cursor.current());
  }
  return set.Digests();
}

TEST(OnboardingProjection, DigestsEqualAcrossLiveFoldRestartAndFollower) {
  testing::TempDir dir;
  const std::string path = dir.Sub("log");
  std::string live_onboarding;
  std::vector<std::pair<std::string, std::string>> live;
  {
    auto log = log::EventLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    std::vector<log::EventDraft> events;
    events.push_back(Completed("trust-store", "ok"));
    events.push_back(Reset("release", "expired", "agent-a"));
    events.push_back(Requested("c1", "echo", "echo"));
    events.push_back(Finished("c1", fb::CallOutcome::Ok));
    events.push_back(Completed("key", "marked", "agent-a"));
    ASSERT_TRUE((*log)->Append(std::move(events)).ok());
    auto cursor = (*log)->Read(1);
    ASSERT_TRUE(cursor.ok());
    live = FoldDigests(**cursor);
  }
  auto reopened = log::EventLog::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto cursor = (*reopened)->Read(1);
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(FoldDigests(**cursor), live);

  auto reader = log::LogReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto follower = (*reader)->Read(1);
  ASSERT_TRUE(follower.ok());
  EXPECT_EQ(FoldDigests(**follower), live);

  // And the onboarding digest is part of it, and depends on its events.
  bool found = false;
  for (const auto& [name, digest] : live) {
    if (name == "onboarding") found = true;
  }
  EXPECT_TRUE(found);
  ASSERT_TRUE((*reopened)->Append({Reset("key", "operator-reset")}).ok());
  auto later = (*reopened)->Read(1);
  ASSERT_TRUE(later.ok());
  EXPECT_NE(FoldDigests(**later), live);
}

}  // namespace
}  // namespace las
