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

// A stand-in chain hash, distinct per sequence.
log::Hash HashOf(uint64_t sequence) {
  log::Hash hash;
  hash.fill(static_cast<uint8_t>(sequence));
  hash[0] = static_cast<uint8_t>(sequence >> 8);
  return hash;
}

class StateProjectionTest : public ::testing::Test {
 protected:
  void Write(bool blackboard, const std::string& key, uint64_t version, const std::string& value,
             uint64_t sequence) {
    auto draft = tools::StateWrittenEvent({"alice", "s"}, blackboard, "alice", key, version,
                                          "replace", value);
    state_.Apply(sequence, HashOf(sequence), *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data()));
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

// A thousand writes to one key cost a thousand small integers and chain hashes, not a
// thousand records.
TEST_F(StateProjectionTest, AnOlderVersionCostsASmallIntegerAndAHashInTheSavedState) {
  Write(false, "k", 1, "\"a value of some length, written again and again\"", 1);
  const size_t one = Saved().size();
  for (uint64_t v = 2; v <= 1000; ++v) {
    Write(false, "k", v, "\"a value of some length, written again and again\"", v * 3);
  }
  const std::string saved = Saved();
  // Sequences 3 apart: one byte each and a 32-byte hash; the count two.
  EXPECT_LE(saved.size(), one + 1 + 33 * 999);
  StateProjection restored;
  ASSERT_TRUE(restored.Restore(saved));
  EXPECT_EQ(restored.CanonicalJson(), state_.CanonicalJson());
  const auto* key = reducers::FindKey(restored.store(), false, "alice", "k");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->current.version, 1000u);
  EXPECT_EQ(key->current.sequence, 3000u);
  EXPECT_EQ(key->sequences.size(), 1000u);
  EXPECT_EQ(key->hashes, reducers::FindKey(state_.store(), false, "alice", "k")->hashes);
  EXPECT_EQ(key->hashes[1], HashOf(6)) << "each version keeps the chain hash it was folded with";
}

// Hand-made states: one key of the blackboard with `count` versions whose sequences are
// `deltas` (each followed by a hash), no private state.
std::string OneKeyState(uint64_t count, const std::vector<uint64_t>& deltas) {
  std::string out;
  StateWriter w(&out);
  w.Uint(1);  // keys
  w.String("k");
  w.Int(5);
  w.String("alice");
  w.String("replace");
  w.String("1");
  w.String(std::string(64, 'a'));
  w.Uint(count);
  for (uint64_t delta : deltas) {
    w.Uint(delta);
    w.Fixed(HashOf(delta));
  }
  w.Uint(0);  // agents with private state
  w.Uint(0);  // skipped
  return out;
}

TEST_F(StateProjectionTest, RestoreRefusesSequenceListsNoFoldProduces) {
  StateProjection good;
  ASSERT_TRUE(good.Restore(OneKeyState(2, {4, 5})));
  EXPECT_EQ(reducers::FindKey(good.store(), true, "", "k")->sequences,
            (std::vector<uint64_t>{4, 9}));
  EXPECT_EQ(reducers::FindKey(good.store(), true, "", "k")->hashes,
            (std::vector<log::Hash>{HashOf(4), HashOf(5)}));
  const std::pair<uint64_t, std::vector<uint64_t>> bad_states[] = {
      {0, {}},         // a key with no version
      {2, {4, 0}},     // a sequence repeated
      {1000000, {1}},  // more than the bytes hold
  };
  for (const auto& [count, deltas] : bad_states) {
    StateProjection restored;
    EXPECT_FALSE(restored.Restore(OneKeyState(count, deltas)))
        << count << " " << ::testing::PrintToString(deltas);
  }
  std::string cut = OneKeyState(2, {4, 5});
  cut.resize(cut.size() - 3);  // the last hash short (and the trailing counts gone)
  StateProjection restored;
  EXPECT_FALSE(restored.Restore(cut));
}

}  // namespace
}  // namespace las::projections
