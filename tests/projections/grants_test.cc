// The grants reducer and projection: exact selectors, delegation only narrows, revocation
// cascades, a changed definition is not covered, rules, and the canonical state (digest,
// snapshot round trip, restart and follower) — on a real RocksDB log where it matters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/event_builder.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/grants_projection.h"
#include "projections/projection_set.h"
#include "projections/replay.h"
#include "tests/support/temp_dir.h"

namespace las::projections {
namespace {

const std::string kD1(64, 'a');
const std::string kD2(64, 'b');
const std::string kD3(64, 'c');

struct Sel {
  std::string surface, tool, digest;
};

// Event drafts, as the tools and the CLI make them. `actor` "" is the operator.
log::EventDraft Issued(const std::string& actor, const std::string& id, const std::string& to,
                       const std::string& parent, bool root, const std::vector<Sel>& sels) {
  log::EventBuilder b;
  auto& f = b.fbb();
  std::vector<flatbuffers::Offset<fb::GrantSelector>> offsets;
  for (const auto& s : sels) {
    offsets.push_back(fb::CreateGrantSelectorDirect(f, s.surface.c_str(), s.tool.c_str(),
                                                    s.digest.c_str()));
  }
  return b.Finish(fb::CreateGrantIssuedDirect(f, id.c_str(), to.c_str(), parent.c_str(), root,
                                              &offsets),
                  actor, actor.empty() ? "" : "session-" + actor);
}

log::EventDraft Revoked(const std::string& actor, const std::string& id) {
  log::EventBuilder b;
  return b.Finish(fb::CreateGrantRevokedDirect(b.fbb(), id.c_str(), "test"), actor, "");
}

log::EventDraft RuleAdded(const std::string& actor, const std::string& id,
                          const std::string& agent, const Sel& s) {
  log::EventBuilder b;
  return b.Finish(fb::CreatePermissionRuleAddedDirect(b.fbb(), id.c_str(), agent.c_str(),
                                                      s.surface.c_str(), s.tool.c_str(),
                                                      s.digest.c_str()),
                  actor, "");
}

log::EventDraft RuleRemoved(const std::string& actor, const std::string& id) {
  log::EventBuilder b;
  return b.Finish(fb::CreatePermissionRuleRemovedDirect(b.fbb(), id.c_str()), actor, "");
}

class GrantsTest : public ::testing::Test {
 protected:
  void Fold(const log::EventDraft& draft) {
    projection_.Apply(++sequence_, log::Hash{}, *fb::GetEnvelope(draft.envelope.data()));
  }
  bool Allows(const std::string& agent, const Sel& s) const {
    return projection_.Allows(agent, s.surface, s.tool, s.digest).has_value();
  }
  const reducers::GrantRecord& Grant(const std::string& id) const {
    return projection_.grants().grants.at(id);
  }

  GrantsProjection projection_;
  uint64_t sequence_ = 0;
};

const Sel kEchoV1{"echo", "echo", kD1};
const Sel kEchoV2{"echo", "echo", kD2};
const Sel kLemSearch{"lem", "search", kD3};

TEST_F(GrantsTest, AnOperatorGrantCoversExactlyItsSelectorsForItsAgent) {
  Fold(Issued("", "g1", "alice", "", false, {kEchoV1}));
  EXPECT_TRUE(Allows("alice", kEchoV1));
  EXPECT_FALSE(Allows("alice", kLemSearch));
  EXPECT_FALSE(Allows("bob", kEchoV1)) << "any other agent starts with nothing";
  EXPECT_FALSE(Allows("alice", {"echo", "echo2", kD1})) << "exact tool name";
  EXPECT_FALSE(Allows("alice", {"echo2", "echo", kD1})) << "exact surface";
  EXPECT_FALSE(projection_.HoldsRoot("alice"));
}

TEST_F(GrantsTest, AChangedDefinitionIsNotCoveredByAGrantForTheOldOne) {
  Fold(Issued("", "g1", "alice", "", false, {kEchoV1}));
  EXPECT_TRUE(Allows("alice", kEchoV1));
  EXPECT_FALSE(Allows("alice", kEchoV2)) << "a new digest never widens an existing grant";
  // What the refusal of the new definition names (probe FT2).
  const reducers::OtherDefinition held = reducers::HeldAtOtherDefinition(
      projection_.grants(), "alice", kEchoV2.surface, kEchoV2.tool, kEchoV2.digest);
  EXPECT_EQ(held.id, "g1");
  EXPECT_EQ(held.definition_sha256, kEchoV1.digest);
  EXPECT_TRUE(reducers::HeldAtOtherDefinition(projection_.grants(), "alice", kEchoV1.surface,
                                              kEchoV1.tool, kEchoV1.digest)
                  .id.empty())
      << "the definition held is no other";
  // With several, the grant issued last is named, whatever the order of the random ids
  // (probe FU5).
  const Sel echo_v3{"echo", "echo", std::string(64, 'c')};
  Fold(Issued("", "g2", "alice", "", false, {kEchoV2}));  // after g1, which is first by id
  EXPECT_EQ(reducers::HeldAtOtherDefinition(projection_.grants(), "alice", echo_v3.surface,
                                            echo_v3.tool, echo_v3.digest)
                .definition_sha256,
            kEchoV2.digest);
  EXPECT_TRUE(reducers::HeldAtOtherDefinition(projection_.grants(), "bob", kEchoV2.surface,
                                              kEchoV2.tool, kEchoV2.digest)
                  .id.empty());
}

TEST_F(GrantsTest, ARootGrantCoversEveryTool) {
  Fold(Issued("", "g1", "alice", "", true, {}));
  EXPECT_TRUE(Allows("alice", kEchoV1));
  EXPECT_TRUE(Allows("alice", kEchoV2));
  EXPECT_TRUE(projection_.HoldsRoot("alice"));
  EXPECT_FALSE(projection_.HoldsRoot("bob"));
}

TEST_F(GrantsTest, DelegationCanOnlyNarrowWhatTheIssuerHolds) {
  Fold(Issued("", "g1", "alice", "", false, {kEchoV1, kLemSearch}));
  Fold(Issued("alice", "g2", "bob", "g1", false, {kEchoV1}));
  EXPECT_TRUE(Allows("bob", kEchoV1));
  EXPECT_FALSE(Allows("bob", kLemSearch)) << "only what was delegated";
  EXPECT_EQ(Grant("g2").status, reducers::kGrantLive);
  EXPECT_EQ(Grant("g2").issuer, "alice");

  Fold(Issued("bob", "g3", "carol", "g2", false, {kLemSearch}));  // bob never held it
  EXPECT_EQ(Grant("g3").status, reducers::kGrantVoid);
  EXPECT_EQ(Grant("g3").reason, "wider-than-parent");
  EXPECT_FALSE(Allows("carol", kLemSearch));
  Fold(Issued("bob", "g4", "carol", "g2", true, {}));  // root from a narrow grant
  EXPECT_EQ(Grant("g4").reason, "wider-than-parent");
  EXPECT_FALSE(Allows("carol", kEchoV1));
  Fold(Issued("bob", "g5", "carol", "g2", false, {kEchoV2}));  // another definition
  EXPECT_EQ(Grant("g5").reason, "wider-than-parent");
}

TEST_F(GrantsTest, OnlyAHolderMayDelegateAndOnlyTheOperatorIssuesParentlessGrants) {
  Fold(Issued("", "g1", "alice", "", true, {}));
  Fold(Issued("mallory", "g2", "mallory2", "g1", false, {kEchoV1}));
  EXPECT_EQ(Grant("g2").reason, "parent-not-held");
  Fold(Issued("mallory", "g3", "mallory", "", true, {}));
  EXPECT_EQ(Grant("g3").reason, "operator-only");
  Fold(Issued("alice", "g4", "bob", "nope", false, {kEchoV1}));
  EXPECT_EQ(Grant("g4").reason, "unknown-parent");
  EXPECT_FALSE(Allows("mallory", kEchoV1));
  EXPECT_FALSE(Allows("mallory2", kEchoV1));
  EXPECT_FALSE(Allows("bob", kEchoV1));
  // A root holder may delegate any exact selector, or root.
  Fold(Issued("alice", "g5", "bob", "g1", false, {kLemSearch}));
  Fold(Issued("alice", "g6", "carol", "g1", true, {}));
  EXPECT_TRUE(Allows("bob", kLemSearch));
  EXPECT_TRUE(projection_.HoldsRoot("carol"));
  // An id is used once: a second GrantIssued with it changes nothing.
  Fold(Issued("", "g5", "mallory", "", true, {}));
  EXPECT_EQ(Grant("g5").agent_id, "bob");
  EXPECT_FALSE(Allows("mallory", kEchoV1));
}

TEST_F(GrantsTest, RevocationCascadesToEverythingDelegatedFromTheGrant) {
  Fold(Issued("", "g1", "alice", "", true, {}));
  Fold(Issued("alice", "g2", "bob", "g1", false, {kEchoV1, kLemSearch}));
  Fold(Issued("bob", "g3", "carol", "g2", false, {kEchoV1}));
  Fold(Issued("alice", "g4", "dave", "g1", false, {kEchoV1}));
  Fold(Issued("", "other", "erin", "", false, {kEchoV1}));
  ASSERT_TRUE(Allows("carol", kEchoV1));
  Fold(Revoked("", "g1"));
  for (const char* id : {"g1", "g2", "g3", "g4"}) {
    EXPECT_EQ(Grant(id).status, reducers::kGrantRevoked) << id;
    EXPECT_EQ(Grant(id).revoked_by, "g1") << id;
  }
  EXPECT_EQ(Grant("g1").reason, "test");
  EXPECT_EQ(Grant("g3").reason, "cascade");
  for (const char* agent : {"alice", "bob", "carol", "dave"}) {
    EXPECT_FALSE(Allows(agent, kEchoV1)) << agent;
  }
  EXPECT_TRUE(Allows("erin", kEchoV1)) << "an unrelated grant stays";
  // Nothing can be delegated from a revoked grant afterwards.
  Fold(Issued("bob", "g5", "frank", "g2", false, {kEchoV1}));
  EXPECT_EQ(Grant("g5").reason, "parent-not-live");
}

TEST_F(GrantsTest, AnAgentRevokesOnlyWhatItIssued) {
  Fold(Issued("", "g1", "alice", "", true, {}));
  Fold(Issued("alice", "g2", "bob", "g1", false, {kEchoV1}));
  Fold(Issued("bob", "g3", "carol", "g2", false, {kEchoV1}));
  Fold(Revoked("bob", "g2"));  // bob holds g2 but did not issue it
  Fold(Revoked("carol", "g1"));
  EXPECT_EQ(Grant("g2").status, reducers::kGrantLive);
  EXPECT_EQ(Grant("g1").status, reducers::kGrantLive);
  Fold(Revoked("alice", "g2"));
  EXPECT_EQ(Grant("g2").status, reducers::kGrantRevoked);
  EXPECT_EQ(Grant("g3").status, reducers::kGrantRevoked);
  EXPECT_EQ(Grant("g1").status, reducers::kGrantLive);
  EXPECT_TRUE(projection_.HoldsRoot("alice"));
}

TEST_F(GrantsTest, RulesAllowExactlyTheirSelectorUntilForgotten) {
  Fold(RuleAdded("", "r1", "alice", kEchoV1));
  EXPECT_TRUE(Allows("alice", kEchoV1));
  auto allowance = projection_.Allows("alice", "echo", "echo", kD1);
  ASSERT_TRUE(allowance);
  EXPECT_EQ(allowance->kind, Allowance::Kind::kRule);
  EXPECT_EQ(allowance->id, "r1");
  EXPECT_FALSE(Allows("alice", kEchoV2)) << "a rule is keyed by the definition digest";
  EXPECT_FALSE(Allows("bob", kEchoV1));
  Fold(RuleAdded("mallory", "r2", "mallory", kEchoV1));  // only the operator adds rules
  EXPECT_FALSE(Allows("mallory", kEchoV1));
  Fold(RuleAdded("", "r3", "alice", {"echo", "echo", "not-a-digest"}));
  EXPECT_EQ(projection_.grants().rules.count("r3"), 0u);
  Fold(RuleAdded("", "r1", "bob", kEchoV1));  // a used id
  EXPECT_FALSE(Allows("bob", kEchoV1));
  Fold(RuleRemoved("mallory", "r1"));
  EXPECT_TRUE(Allows("alice", kEchoV1)) << "only the operator forgets rules";
  Fold(RuleRemoved("", "r1"));
  EXPECT_FALSE(Allows("alice", kEchoV1));
}

TEST_F(GrantsTest, IllFormedSelectorsNeverMatch) {
  Fold(Issued("", "g1", "alice", "", false,
              {{"a__b", "c", kD1}, {"echo", "", kD1}, {"echo", "echo", "ABC"}, kEchoV1}));
  EXPECT_EQ(Grant("g1").selectors.size(), 1u);
  EXPECT_FALSE(Allows("alice", {"a__b", "c", kD1}));
  EXPECT_TRUE(Allows("alice", kEchoV1));
}

TEST_F(GrantsTest, CanonicalJsonAndASnapshotRoundTrip) {
  Fold(Issued("", "g1", "alice", "", true, {}));
  Fold(Issued("alice", "g2", "bob", "g1", false, {kEchoV1, kLemSearch}));
  Fold(Issued("bob", "g3", "carol", "g2", false, {kEchoV1}));
  Fold(RuleAdded("", "r1", "dave", kEchoV2));
  Fold(Revoked("alice", "g2"));
  EXPECT_EQ(projection_.CanonicalJson().rfind(R"({"grants":{"g1":{"agent_id":"alice",)", 0), 0u)
      << projection_.CanonicalJson();
  std::string saved;
  ASSERT_TRUE(projection_.Save(saved));
  GrantsProjection restored;
  ASSERT_TRUE(restored.Restore(saved));
  EXPECT_EQ(Digest(restored), Digest(projection_));
  EXPECT_TRUE(restored.Allows("dave", "echo", "echo", kD2));
  EXPECT_TRUE(restored.HoldsRoot("alice"));
  EXPECT_FALSE(restored.Allows("carol", "echo", "echo", kD1));
  // A damaged record is refused, not half-loaded.
  GrantsProjection truncated;
  EXPECT_FALSE(truncated.Restore(std::string_view(saved).substr(0, saved.size() - 1)));
}

// The same events through a real log: the writer's fold, a fold after reopening (restart)
// and a follower's fold all give one digest.
TEST(GrantsLogTest, DigestsAreEqualAfterARestartAndThroughAFollower) {
  testing::TempDir tmp;
  auto fold = [](log::EventCursor& cursor) {
    ProjectionSet set;
    auto outcome = Replay(cursor, {}, {}, set);
    EXPECT_TRUE(outcome.status.ok()) << outcome.status.ToString();
    return set.Digests();
  };
  std::vector<std::pair<std::string, std::string>> before;
  {
    auto log = log::EventLog::Open(tmp.Sub("log"));
    ASSERT_TRUE(log.ok());
    std::vector<log::EventDraft> drafts;
    drafts.push_back(Issued("", "g1", "alice", "", true, {}));
    drafts.push_back(Issued("alice", "g2", "bob", "g1", false, {kEchoV1}));
    drafts.push_back(RuleAdded("", "r1", "carol", kLemSearch));
    drafts.push_back(Revoked("", "g1"));
    ASSERT_TRUE((*log)->Append(std::move(drafts)).ok());
    auto cursor = (*log)->Read(1);
    ASSERT_TRUE(cursor.ok());
    before = fold(**cursor);
  }
  auto reopened = log::EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(reopened.ok());
  auto cursor = (*reopened)->Read(1);
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(fold(**cursor), before);
  auto reader = log::LogReader::Open(tmp.Sub("log"));
  ASSERT_TRUE(reader.ok());
  auto follower = (*reader)->Read(1);
  ASSERT_TRUE(follower.ok());
  EXPECT_EQ(fold(**follower), before);
  bool has_grants = false;
  for (const auto& [name, digest] : before) has_grants |= name == "grants";
  EXPECT_TRUE(has_grants);
}

}  // namespace
}  // namespace las::projections
