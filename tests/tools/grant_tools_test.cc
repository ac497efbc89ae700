// The agents' grant tools (tools/grant_tools.h) through the real gateway and loop appender,
// where two sessions' grant changes are in flight at once: the answer is what the log made
// of each event, not what the folded grants said before it was appended.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/temp_dir.h"
#include "tests/tools/coordination_harness.h"
#include "tools/grant_events.h"

namespace las::tools {
namespace {

using nlohmann::json;

class GrantToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Open();
    // The operator's root grant for alice, who delegates `all` to carol.
    ASSERT_TRUE(server_.log()
                    .Append({GrantIssuedEvent({"", ""}, "grant-op", "alice", "", true, {})})
                    .ok());
    ASSERT_TRUE(server_.live().CatchUp().ok());
    carol_grant_ = Delegate("alice", "grant-op", "carol")["grant_id"];
  }

  json Result(const std::string& agent, int id) { return server_.Await(agent, id); }
  int SendDelegate(const std::string& agent, const std::string& from, const std::string& to) {
    return server_.Send(agent, "las__grant_delegate",
                        json{{"to_agent", to}, {"from_grant", from}, {"all", true}}.dump());
  }
  json Delegate(const std::string& agent, const std::string& from, const std::string& to) {
    json result = Result(agent, SendDelegate(agent, from, to));
    EXPECT_FALSE(result.value("isError", false)) << result.dump();
    return result["structuredContent"];
  }
  int SendRevoke(const std::string& agent, const std::string& id) {
    return server_.Send(agent, "las__grant_revoke", json{{"grant_id", id}}.dump());
  }
  std::string Status(const std::string& agent, const std::string& grant_id) {
    json issued = server_.Call(agent, "las__grants", "{}")["structuredContent"]["issued"];
    for (const auto& g : issued) {
      if (g["grant_id"] == grant_id) return g["status"];
    }
    return "absent";
  }

  testing::TempDir tmp_;
  CoordinationHarness server_{tmp_.Sub("log")};
  std::string carol_grant_;
};

// As `las grant` refuses them: Las's own tools are not granted by name, even from a root grant.
TEST_F(GrantToolsTest, ASelectorOnLasOwnToolsIsRefused) {
  json result = server_.Call(
      "carol", "las__grant_delegate",
      json{{"to_agent", "dave"}, {"from_grant", carol_grant_},
           {"selectors", {{{"surface", "las"}, {"tool", "state_get"},
                           {"definition_sha256", std::string(64, 'a')}}}}}.dump());
  EXPECT_TRUE(result.value("isError", false)) << result.dump();
  EXPECT_EQ(result["content"][0]["text"], "Refused: invalid-selector") << result.dump();
}

// Names no release can give are refused as `las grant` refuses them: a grant for one would
// never match, and `a_` + `_b` would share its key `a____b` with `a` + `__b` (probe BX2).
TEST_F(GrantToolsTest, ASelectorNoReleaseCanNameIsRefused) {
  const std::string digest(64, 'a');
  for (const auto& [surface, tool] : std::vector<std::pair<std::string, std::string>>{
           {"Not A Surface!", "x"}, {"echo", "../x y"}, {"a_", "_b"}, {"las", "state_get"},
           {std::string(65, 'a'), "x"}}) {
    json result = server_.Call(
        "carol", "las__grant_delegate",
        json{{"to_agent", "dave"}, {"from_grant", carol_grant_},
             {"selectors", {{{"surface", surface}, {"tool", tool}, {"definition_sha256", digest}}}}}
            .dump());
    EXPECT_EQ(result["content"][0]["text"], "Refused: invalid-selector") << surface << " " << tool;
  }
  EXPECT_EQ(server_.Call("dave", "las__grants", "{}")["structuredContent"]["grants"], json::array());
}

// A second equal delegation from the same grant would survive the revocation of the first
// (probe W1); from another grant it is a different chain, and allowed.
TEST_F(GrantToolsTest, TheSameDelegationTwiceIsRefused) {
  json again = Result("alice", SendDelegate("alice", "grant-op", "carol"));
  EXPECT_TRUE(again.value("isError", false)) << again.dump();
  EXPECT_EQ(again["content"][0]["text"], "Refused: already-delegated") << again.dump();
  ASSERT_TRUE(server_.log()
                  .Append({GrantIssuedEvent({"", ""}, "grant-op2", "alice", "", true, {})})
                  .ok());
  ASSERT_TRUE(server_.live().CatchUp().ok());
  EXPECT_NE(Delegate("alice", "grant-op2", "carol")["grant_id"], carol_grant_);
  // Once the first is revoked, it may be delegated anew.
  EXPECT_FALSE(Result("alice", SendRevoke("alice", carol_grant_)).value("isError", false));
  EXPECT_NE(Delegate("alice", "grant-op", "carol")["grant_id"], carol_grant_);
}

// Two equal delegations in flight at once: the second finds no live grant yet, and is
// refused all the same (probe Y2).
TEST_F(GrantToolsTest, TheSameDelegationTwiceInFlightIsIssuedOnce) {
  const int first = SendDelegate("alice", "grant-op", "erin");
  const int second = SendDelegate("alice", "grant-op", "erin");
  json one = Result("alice", first);
  json two = Result("alice", second);
  EXPECT_FALSE(one.value("isError", false)) << one.dump();
  EXPECT_EQ(two["content"][0]["text"], "Refused: already-delegated") << two.dump();
  // Once answered, the pending mark is gone: after a revoke it may be issued anew.
  EXPECT_FALSE(Result("alice", SendRevoke("alice", one["structuredContent"]["grant_id"]))
                   .value("isError", false));
  EXPECT_FALSE(Delegate("alice", "grant-op", "erin").is_null());
}

TEST_F(GrantToolsTest, ADelegationFromAGrantRevokedMeanwhileIsRefused) {
  const int revoke = SendRevoke("alice", carol_grant_);
  const int delegate = SendDelegate("carol", carol_grant_, "dave");  // before the revoke folds
  EXPECT_FALSE(Result("alice", revoke).value("isError", false));
  json refused = Result("carol", delegate);
  EXPECT_TRUE(refused.value("isError", false)) << refused.dump();
  EXPECT_EQ(refused["content"][0]["text"], "Refused: not-held");
  json held = server_.Call("dave", "las__grants", "{}")["structuredContent"]["grants"];
  EXPECT_TRUE(held.empty()) << held.dump();
}

TEST_F(GrantToolsTest, ARevocationListsAGrantDelegatedJustBeforeIt) {
  const int delegate = SendDelegate("carol", carol_grant_, "dave");
  const int revoke = SendRevoke("alice", carol_grant_);  // before the delegation folds
  json delegated = Result("carol", delegate)["structuredContent"];
  ASSERT_TRUE(delegated.contains("grant_id")) << delegated.dump();
  json revoked = Result("alice", revoke)["structuredContent"]["revoked"];
  EXPECT_EQ(revoked, json::array({carol_grant_, delegated["grant_id"]}));
  EXPECT_EQ(Status("carol", delegated["grant_id"]), "revoked");
}

TEST_F(GrantToolsTest, OfTwoRevocationsInFlightTheSecondIsNotLive) {
  const int first = SendRevoke("alice", carol_grant_);
  const int second = SendRevoke("alice", carol_grant_);
  EXPECT_EQ(Result("alice", first)["structuredContent"]["revoked"], json::array({carol_grant_}));
  json again = Result("alice", second);
  EXPECT_TRUE(again.value("isError", false)) << again.dump();
  EXPECT_EQ(again["content"][0]["text"], "Refused: not-live");
}

}  // namespace
}  // namespace las::tools
