// The "state" projection (projections/state_projection.h): its canonical JSON, and a saved
// state that keeps one sequence per older version, restores to the same digest and refuses
// sequence lists that no fold can produce.
#include "projections/state_projection.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "log/envelope.h"
#include "log/events_generated.h"
#include "projections/state_codec.h"
#include "tools/coordination_events.h"

namespace las::projections {
namespace {

class StateProjectionTest : public ::testing::Test {
 protected:
  void Write(bool blackboard, const std::string& key, uint64_t version, const std::string& value,
             uint64_t sequence) {
    auto draft = tools::StateWrittenEvent({"alice", "s"}, blackboard, "alice", key, version,
                                          "replace", value);
    state_.Apply(sequence, *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
  }
  std::string Saved() const {
    std::string out;
    EXPECT_TRUE(state_.Save(out));
    return out;
  }
  StateProjection state_;
};

TEST_F(StateProjectionTest, CanonicalJsonHasTheCurrentVersionWholeAndEverySequence) {
  Write(true, "k", 1, "1", 4);
  Write(true, "k", 2, "[2]", 9);
  const auto json = nlohmann::json::parse(state_.CanonicalJson());
  const auto& k = json["blackboard"]["k"];
  EXPECT_EQ(k["version"], 2);
  EXPECT_EQ(k["value"], "[2]");
  EXPECT_EQ(k["author_agent_id"], "alice");
  EXPECT_EQ(k["reducer"], "replace");
  EXPECT_EQ(k["sequences"], nlohmann::json({4, 9}));
  EXPECT_EQ(k["value_sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(json["private"], nlohmann::json::object());
  EXPECT_EQ(json["skipped"], 0);
}

TEST_F(StateProjectionTest, ARestoredStateHoldsWhatTheFoldedOneHeld) {
  Write(true, "k", 1, "[1,2,3]", 1);
  Write(false, "p", 1, "\"private\"", 2);
  StateProjection restored;
  ASSERT_TRUE(restored.Restore(Saved()));
  EXPECT_EQ(restored.store().held_bytes, state_.store().held_bytes);
  EXPECT_EQ(reducers::HeldBytes(restored.store(), "alice"),
            reducers::HeldBytesOf("k", "[1,2,3]") + reducers::HeldBytesOf("p", "\"private\""));
}

// A thousand writes to one key cost a thousand small integers, not a thousand records.
TEST_F(StateProjectionTest, AnOlderVersionCostsOneSmallIntegerInTheSavedState) {
  Write(false, "k", 1, "\"a value of some length, written again and again\"", 1);
  const size_t one = Saved().size();
  for (uint64_t v = 2; v <= 1000; ++v) {
    Write(false, "k", v, "\"a value of some length, written again and again\"", v * 3);
  }
  const std::string saved = Saved();
  EXPECT_LE(saved.size(), one + 2 * 999);  // sequences 3 apart: one byte each, the count two
  StateProjection restored;
  ASSERT_TRUE(restored.Restore(saved));
  EXPECT_EQ(restored.CanonicalJson(), state_.CanonicalJson());
  const auto* key = reducers::FindKey(restored.store(), false, "alice", "k");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->current.version, 1000u);
  EXPECT_EQ(key->current.sequence, 3000u);
  EXPECT_EQ(key->sequences.size(), 1000u);
}

// Hand-made states: one key of the blackboard whose sequence list is `sequences` (count,
// then deltas), no private state.
std::string OneKeyState(const std::vector<uint64_t>& count_and_deltas) {
  std::string out;
  StateWriter w(&out);
  w.Uint(1);  // keys
  w.String("k");
  w.Int(5);
  w.String("alice");
  w.String("replace");
  w.String("1");
  w.String(std::string(64, 'a'));
  for (uint64_t n : count_and_deltas) w.Uint(n);
  w.Uint(0);  // agents with private state
  w.Uint(0);  // skipped
  return out;
}

TEST_F(StateProjectionTest, RestoreRefusesSequenceListsNoFoldProduces) {
  StateProjection good;
  ASSERT_TRUE(good.Restore(OneKeyState({2, 4, 5})));
  EXPECT_EQ(reducers::FindKey(good.store(), true, "", "k")->sequences,
            (std::vector<uint64_t>{4, 9}));
  for (const auto& bad : {std::vector<uint64_t>{0},             // a key with no version
                          std::vector<uint64_t>{2, 4, 0},       // a sequence repeated
                          std::vector<uint64_t>{1000000, 1}}) {  // more than the bytes hold
    StateProjection restored;
    EXPECT_FALSE(restored.Restore(OneKeyState(bad))) << ::testing::PrintToString(bad);
  }
}

}  // namespace
}  // namespace las::projections
