// The coordination tools through the real Gateway and McpEndpoint over a real log:
// state and blackboard, CAS under concurrency, paging bounds, exact values and refusals,
// handles and their owner, messages, and digests after a restart and a replay.
#include <gtest/gtest.h>

#include <set>

#include <cstring>
#include <tuple>

#include "log/chain_hash.h"
#include "log/event_json.h"
#include "log/log_reader.h"
#include "projections/handles_projection.h"
#include "projections/mailbox_projection.h"
#include "projections/state_projection.h"
#include "projections/replay.h"
#include "tests/log/raw_db.h"
#include "tests/tools/coordination_harness.h"
#include "tools/coordination.h"
#include "tools/handle_refs.h"
#include "transport/line_breaks.h"

namespace las::tools {
namespace {

using nlohmann::json;

class CoordinationToolsTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.Open(); }

  json Call(const std::string& agent, const std::string& tool, const json& arguments) {
    return server_.Call(agent, tool, arguments.dump());
  }
  // structuredContent of a successful call (fails the test on a tool error).
  json Ok(const std::string& agent, const std::string& tool, const json& arguments) {
    json result = Call(agent, tool, arguments);
    EXPECT_FALSE(result.value("isError", false)) << tool << " " << result.dump();
    return result["structuredContent"];
  }
  // The error code of a refused call.
  std::string ErrorCode(const std::string& agent, const std::string& tool,
                        const std::string& arguments) {
    json result = server_.Call(agent, tool, arguments);
    EXPECT_TRUE(result.value("isError", false)) << result.dump();
    return result["structuredContent"]["error"]["code"].get<std::string>();
  }

  testing::TempDir tmp_;
  CoordinationHarness server_{tmp_.Sub("log")};
};

TEST_F(CoordinationToolsTest, PrivateStateBelongsToOneAgentAndTheBlackboardIsShared) {
  EXPECT_EQ(Ok("alice", "las__state_set", {{"key", "k"}, {"value", {{"n", 1}}}})["version"], 1);
  EXPECT_EQ(Ok("alice", "las__state_set", {{"key", "k"}, {"value", "two"}})["version"], 2);
  json got = Ok("alice", "las__state_get", {{"key", "k"}});
  EXPECT_EQ(got["record"]["value"], "two");
  EXPECT_EQ(got["record"]["version"], 2);
  EXPECT_EQ(got["record"]["author_agent_id"], "alice");
  EXPECT_EQ(Ok("bob", "las__state_get", {{"key", "k"}})["found"], false) << "alice's, not bob's";

  Ok("alice", "las__state_set", {{"scope", "blackboard"}, {"key", "plan"}, {"value", "draft"}});
  json shared = Ok("bob", "las__state_get", {{"scope", "blackboard"}, {"key", "plan"}});
  EXPECT_EQ(shared["record"]["value"], "draft");
  EXPECT_EQ(shared["record"]["author_agent_id"], "alice");
}

// An answer reveals only what is on disk (probe BT1): a read that sees another agent's write
// whose sync is still out waits for that sync, so no one learns of a write a power loss
// could still remove (and that its writer could yet be told failed). A read of durable
// state is answered at once.
TEST(CoordinationDurabilityTest, AReadOfAWriteWhoseSyncIsOutWaitsForIt) {
  testing::TempDir tmp;
  CoordinationHarness server(tmp.Sub("log"));
  server.HoldSyncs();
  server.Open();
  const std::string get = R"({"scope":"blackboard","key":"k"})";
  // Until `agent`'s request `id` is answered, lets every sync the loop waits for through.
  auto settle = [&](const std::string& agent, int id) { return server.Settle(agent, id); };
  // Each session opened (its SessionOpened made durable) and reading nothing yet.
  EXPECT_EQ(settle("alice", server.Send("alice", "las__state_get", get))["structuredContent"]["found"],
            false);
  EXPECT_EQ(settle("bob", server.Send("bob", "las__state_get", get))["structuredContent"]["found"],
            false);

  const int write = server.Send("alice", "las__state_set",
                                R"({"scope":"blackboard","key":"k","value":1})");
  server.RunReady();
  ASSERT_GE(server.held_syncs().held(), 1u);
  ASSERT_FALSE(server.Answered("alice", write)) << "the write waits for its sync";
  const int read = server.Send("bob", "las__state_get", get);
  server.RunReady();
  EXPECT_FALSE(server.Answered("bob", read)) << "bob saw alice's write before it was on disk";

  server.held_syncs().Release();
  EXPECT_EQ(server.Await("alice", write)["structuredContent"]["version"], 1);
  const json seen = server.Await("bob", read)["structuredContent"];
  EXPECT_EQ(seen["found"], true);
  EXPECT_EQ(seen["record"]["version"], 1);

  // Nothing unsynced to see: answered without a sync.
  const int again = server.Send("bob", "las__state_get", get);
  server.RunReady();
  EXPECT_TRUE(server.Answered("bob", again));
  EXPECT_EQ(server.held_syncs().held(), 0u);
}

// Calls decided in one turn after a write or completion still queued for that turn's flush
// read it from the in-memory overlays (pending writes, messages being completed): their
// answers, refusals included, wait until it is on disk, as the call that made it does
// (probe CM1: a losing CAS was told "current_version 1", a second complete "completed",
// a defer "message-completed", while that event's sync was still out).
TEST(CoordinationDurabilityTest, AnswersFromAnEventQueuedThisTurnWaitForItsSync) {
  testing::TempDir tmp;
  CoordinationHarness server(tmp.Sub("log"));
  server.HoldSyncs();
  server.Open();
  auto settle = [&](const std::string& agent, int id) { return server.Settle(agent, id); };
  const json sent =
      settle("bob", server.Send("bob", "las__message_send", R"({"to":"alice","subject":"s"})"));
  const std::string message = sent["structuredContent"]["message_id"];
  const std::string by_id = R"({"message_id":")" + message + R"("})";
  settle("alice", server.Send("alice", "las__state_get", R"({"key":"k"})"));  // session opened

  const std::string cas = R"({"scope":"blackboard","key":"k","expected_version":0,"value":1})";
  const int won = server.Send("alice", "las__state_cas", cas);
  const int lost = server.Send("bob", "las__state_cas", cas);
  const int completed = server.Send("alice", "las__message_complete", by_id);
  const int again = server.Send("alice", "las__message_complete", by_id);
  const int deferred =
      server.Send("alice", "las__message_defer", R"({"seconds":60,"message_id":")" + message + R"("})");
  const int listed = server.Send("alice", "las__message_list", R"({"include_completed":true})");
  const int open_only = server.Send("alice", "las__message_list", "{}");
  server.RunReady();
  ASSERT_GE(server.held_syncs().held(), 1u);
  EXPECT_FALSE(server.Answered("alice", won));
  EXPECT_FALSE(server.Answered("bob", lost)) << "the CAS it lost to is not on disk";
  EXPECT_FALSE(server.Answered("alice", completed));
  EXPECT_FALSE(server.Answered("alice", again)) << "the completion it saw is not on disk";
  EXPECT_FALSE(server.Answered("alice", deferred)) << "the completion it saw is not on disk";

  server.held_syncs().Release();
  EXPECT_EQ(server.Await("alice", won)["structuredContent"]["version"], 1);
  const json refused = server.Await("bob", lost)["structuredContent"]["error"];
  EXPECT_EQ(refused["code"], "version-conflict");
  EXPECT_EQ(refused["current_version"], 1);
  EXPECT_EQ(server.Await("alice", completed)["structuredContent"]["state"], "completed");
  EXPECT_EQ(server.Await("alice", again)["structuredContent"]["state"], "completed");
  EXPECT_EQ(server.Await("alice", deferred)["structuredContent"]["error"]["code"], "message-completed");
  // A listing sent with the completion shows it as the other calls do (probe CM2).
  const json all = server.Await("alice", listed)["structuredContent"]["messages"];
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["state"], "completed");
  EXPECT_EQ(server.Await("alice", open_only)["structuredContent"]["messages"], json::array());
}

// One agent cannot fill the server's memory with state (probe CS5: 200 keys of 1 MB each
// held 194 MB): past its quota a write that would hold more is refused and recorded nothing;
// one that holds less goes through; each agent has its own quota.
TEST(CoordinationQuotaTest, AWritePastTheAgentsQuotaIsRefusedAndOneThatHoldsLessIsNot) {
  testing::TempDir tmp;
  CoordinationHarness server(tmp.Sub("log"));
  const uint64_t a600 = reducers::HeldBytesOf("a", "\"" + std::string(600, 'x') + "\"");
  server.SetStateQuota(a600 + 200);
  server.Open();
  auto set = [&](const std::string& agent, const std::string& scope, const std::string& key,
                 size_t length) {
    return server.Call(agent, "las__state_set",
                       json{{"scope", scope}, {"key", key}, {"value", std::string(length, 'x')}}
                           .dump())["structuredContent"];
  };
  EXPECT_EQ(set("alice", "private", "a", 600)["version"], 1);
  const json refused = set("alice", "private", "b", 200)["error"];
  EXPECT_EQ(refused["code"], "state-quota-exceeded");
  EXPECT_EQ(refused["held_bytes"], a600);
  EXPECT_EQ(refused["quota_bytes"], a600 + 200);
  EXPECT_EQ(server.Call("alice", "las__state_get", R"({"key":"b"})")["structuredContent"]["found"],
            false);
  EXPECT_EQ(set("bob", "private", "b", 600)["version"], 1) << "bob has a quota of his own";
  // Overwriting holds the new value instead of the old: smaller fits, and then "b" does.
  EXPECT_EQ(set("alice", "private", "a", 100)["version"], 2);
  EXPECT_EQ(set("alice", "private", "b", 200)["version"], 1);
  // A blackboard key belongs to whoever wrote it last: bob taking it over frees alice.
  EXPECT_EQ(set("alice", "blackboard", "shared", 400)["error"]["code"], "state-quota-exceeded");
  EXPECT_EQ(set("bob", "blackboard", "shared", 10)["version"], 1);
  EXPECT_EQ(set("alice", "private", "b", 10)["version"], 2);
  EXPECT_EQ(set("alice", "blackboard", "shared", 400)["version"], 2);
  EXPECT_EQ(set("bob", "private", "c", 50)["version"], 1) << "the shared key is no longer bob's";
}

// Writes decided before any of them is folded count as if they were: three pipelined writes
// of which only two fit leave exactly two recorded.
TEST(CoordinationQuotaTest, WritesNotYetFoldedCountTowardTheQuota) {
  testing::TempDir tmp;
  CoordinationHarness server(tmp.Sub("log"));
  server.HoldSyncs();
  const uint64_t each = reducers::HeldBytesOf("k1", "\"" + std::string(300, 'x') + "\"");
  server.SetStateQuota(2 * each + 100);
  server.Open();
  auto settle = [&](const std::string& agent, int id) {
    return server.Settle(agent, id)["structuredContent"];
  };
  settle("alice", server.Send("alice", "las__state_get", R"({"key":"k1"})"));  // session opened
  std::vector<int> ids;
  for (const char* key : {"k1", "k2", "k3"}) {
    ids.push_back(server.Send("alice", "las__state_set",
                              json{{"key", key}, {"value", std::string(300, 'x')}}.dump()));
  }
  server.RunReady();
  ASSERT_GE(server.held_syncs().held(), 1u) << "all three decided before their sync";
  EXPECT_EQ(settle("alice", ids[0])["version"], 1);
  EXPECT_EQ(settle("alice", ids[1])["version"], 1);
  const json third = settle("alice", ids[2]);
  ASSERT_TRUE(third.contains("error")) << "the third write was let through: " << third.dump();
  EXPECT_EQ(third["error"]["code"], "state-quota-exceeded");
  EXPECT_EQ(third["error"]["held_bytes"], 2 * each);
  ASSERT_TRUE(server.live().CatchUp().ok());
  EXPECT_EQ(reducers::HeldBytes(server.live().Get<projections::StateProjection>("state")->store(),
                                "alice"),
            2 * each);
}

// A server whose mailboxes hold at most 2 open messages and whose syncs wait to be released,
// with alice's session open.
class CoordinationMailboxBoundTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.HoldSyncs();
    server_.SetMailboxBound(2);
    server_.Open();
    settle("alice", server_.Send("alice", "las__state_get", R"({"key":"k"})"));
  }
  json settle(const std::string& agent, int id) { return server_.Settle(agent, id)["structuredContent"]; }
  int send(const std::string& from, const std::string& to) {
    return server_.Send(from, "las__message_send", json{{"to", to}, {"subject", "s"}}.dump());
  }
  void complete(const std::string& agent, const std::string& message_id) {
    settle(agent, server_.Send(agent, "las__message_complete", json{{"message_id", message_id}}.dump()));
  }

  testing::TempDir tmp_;
  CoordinationHarness server_{tmp_.Sub("log")};
};

// Agents cannot flood another's mailbox without end: at the bound a send is refused
// mailbox-full and records nothing, sends decided before their fold count, a completion
// makes room, and each recipient has a bound of its own.
TEST_F(CoordinationMailboxBoundTest, ASendToAFullMailboxIsRefusedUntilTheRecipientCompletesOne) {
  const std::vector<int> ids = {send("alice", "bob"), send("carol", "bob"), send("dave", "bob")};
  server_.RunReady();
  ASSERT_GE(server_.held_syncs().held(), 1u) << "all three decided before their sync";
  const std::string first = settle("alice", ids[0])["message_id"];
  EXPECT_FALSE(first.empty());
  EXPECT_TRUE(settle("carol", ids[1]).contains("message_id"));
  const json refused = settle("dave", ids[2]);
  ASSERT_TRUE(refused.contains("error")) << "the third send was let through: " << refused.dump();
  EXPECT_EQ(refused["error"]["code"], "mailbox-full");
  EXPECT_FALSE(refused["error"].contains("open_messages")) << "another agent's count is not told";
  EXPECT_FALSE(refused["error"].contains("sender_limit")) << "dave held none: " << refused.dump();
  EXPECT_EQ(refused["error"]["limit"], 2);
  EXPECT_TRUE(settle("dave", send("dave", "carol")).contains("message_id")) << "carol's is her own";
  // Reading does not make room; completing does.
  settle("bob", server_.Send("bob", "las__message_read", json{{"message_id", first}}.dump()));
  EXPECT_EQ(settle("dave", send("dave", "bob"))["error"]["code"], "mailbox-full");
  complete("bob", first);
  EXPECT_TRUE(settle("dave", send("dave", "bob")).contains("message_id"));
  const json listed = settle("bob", server_.Send("bob", "las__message_list", "{}"));
  EXPECT_EQ(listed["messages"].size(), 2u) << listed.dump();
}

// One sender may hold at most half a mailbox's bound, so that one agent sending without end
// leaves room for the others; only completing its own messages makes room for it again.
TEST_F(CoordinationMailboxBoundTest, OneSenderHoldsAtMostHalfAMailbox) {
  const std::vector<int> ids = {send("alice", "bob"), send("alice", "bob")};
  server_.RunReady();
  ASSERT_GE(server_.held_syncs().held(), 1u) << "both decided before their sync";
  const std::string alices = settle("alice", ids[0])["message_id"];
  const json refused = settle("alice", ids[1]);
  ASSERT_TRUE(refused.contains("error")) << "alice filled bob's mailbox: " << refused.dump();
  EXPECT_EQ(refused["error"]["code"], "mailbox-full");
  EXPECT_EQ(refused["error"]["sender_limit"], 1) << refused.dump();
  EXPECT_EQ(refused["error"]["limit"], 2);
  const std::string carols = settle("carol", send("carol", "bob"))["message_id"];
  ASSERT_FALSE(carols.empty()) << "room is left for another sender";
  complete("bob", carols);
  EXPECT_EQ(settle("alice", send("alice", "bob"))["error"]["sender_limit"], 1)
      << "another sender's completed message makes no room for alice";
  complete("bob", alices);
  EXPECT_TRUE(settle("alice", send("alice", "bob")).contains("message_id"));
}

// A send folded into the mailbox before its answer is durable counts once, not as folded
// and as in flight both (probe IS1: pipelined sends were refused mailbox-full with room).
TEST_F(CoordinationMailboxBoundTest, ASendFoldedBeforeItsAnswerCountsOnce) {
  const int first = send("alice", "bob");
  server_.RunReady();
  // A read writes and folds what is queued: the first send is filed in bob's mailbox while
  // its sync, and so its answer, is held.
  const int listing = server_.Send("bob", "las__message_list", "{}");
  server_.RunReady();
  ASSERT_GE(server_.held_syncs().held(), 1u) << "the first send's answer waits for its sync";
  const int second = send("carol", "bob");
  server_.RunReady();
  EXPECT_TRUE(settle("alice", first).contains("message_id"));
  const json answered = settle("carol", second);
  EXPECT_TRUE(answered.contains("message_id")) << "bob held one message of two: " << answered.dump();
  EXPECT_EQ(settle("bob", listing)["messages"].size(), 1u);
}

// A page that leaves out a message being completed still holds `limit` messages when there
// are more (probe CN7: an empty page with `next` came back).
TEST_F(CoordinationToolsTest, AListingSentWithACompletionStillFillsItsPage) {
  const std::string first = Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m1"}})["message_id"];
  Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m2"}});
  Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m3"}});
  const int completed = server_.Send("alice", "las__message_complete", json{{"message_id", first}}.dump());
  const int listed = server_.Send("alice", "las__message_list", R"({"limit":1})");
  EXPECT_EQ(server_.Await("alice", completed)["structuredContent"]["state"], "completed");
  const json page = server_.Await("alice", listed)["structuredContent"];
  ASSERT_EQ(page["messages"].size(), 1u) << page.dump();
  EXPECT_EQ(page["messages"][0]["subject"], "m2");
  ASSERT_TRUE(page["next"].is_string()) << page.dump();
  const json rest = Ok("alice", "las__message_list", {{"limit", 1}, {"after", page["next"]}});
  ASSERT_EQ(rest["messages"].size(), 1u) << rest.dump();
  EXPECT_EQ(rest["messages"][0]["subject"], "m3");
}

// A listing sent with a deferral and a read shows the states they decided, as one sent
// with a completion does (probe EU1: it showed both messages unread until the fold).
TEST_F(CoordinationToolsTest, AListingSentWithADeferralAndAReadShowsTheirStates) {
  const std::string first = Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m1"}})["message_id"];
  const std::string second = Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m2"}})["message_id"];
  Ok("bob", "las__message_send", {{"to", "alice"}, {"subject", "m3"}});
  const int deferred = server_.Send("alice", "las__message_defer",
                                    json{{"message_id", first}, {"seconds", 600}}.dump());
  const int read = server_.Send("alice", "las__message_read", json{{"message_id", second}}.dump());
  const int listed = server_.Send("alice", "las__message_list", "{}");
  const json deferral = server_.Await("alice", deferred)["structuredContent"];
  EXPECT_EQ(deferral["state"], "deferred");
  EXPECT_EQ(server_.Await("alice", read)["structuredContent"]["state"], "read");
  const json page = server_.Await("alice", listed)["structuredContent"]["messages"];
  ASSERT_EQ(page.size(), 3u) << page.dump();
  std::map<std::string, json> by_subject;
  for (const json& m : page) by_subject[m["subject"]] = m;
  EXPECT_EQ(by_subject["m1"]["state"], "deferred") << page.dump();
  EXPECT_EQ(by_subject["m1"]["deferred_until_micros"], deferral["deferred_until_micros"]);
  EXPECT_EQ(by_subject["m2"]["state"], "read") << page.dump();
  EXPECT_EQ(by_subject["m3"]["state"], "unread");
  // Once folded, the order moves them: unread, then read, then deferred.
  const json after = Ok("alice", "las__message_list", json::object())["messages"];
  ASSERT_EQ(after.size(), 3u) << after.dump();
  EXPECT_EQ(after[0]["subject"], "m3");
  EXPECT_EQ(after[1]["subject"], "m2");
  EXPECT_EQ(after[2]["subject"], "m1");
}

// Reads sent together with writes see them: a set then a get of one key, an append then
// the key's history, a message sent then the mailbox listed (probe FB1: each read what the
// log held before the write, and a get after a successful CAS showed the older version).
TEST_F(CoordinationToolsTest, AReadSentWithAWriteSeesIt) {
  const int set = server_.Send("alice", "las__state_set", R"({"key":"k","value":1})");
  const int cas =
      server_.Send("alice", "las__state_cas", R"({"key":"k","expected_version":1,"value":2})");
  const int got = server_.Send("alice", "las__state_get", R"({"key":"k"})");
  const int history = server_.Send("alice", "las__state_history", R"({"key":"k"})");
  const int sent = server_.Send("alice", "las__message_send", R"({"to":"alice","subject":"s"})");
  const int listed = server_.Send("alice", "las__message_list", "{}");
  EXPECT_EQ(server_.Await("alice", set)["structuredContent"]["version"], 1);
  EXPECT_EQ(server_.Await("alice", cas)["structuredContent"]["version"], 2);
  const json record = server_.Await("alice", got)["structuredContent"];
  EXPECT_EQ(record["found"], true) << record.dump();
  EXPECT_EQ(record["record"]["version"], 2) << record.dump();
  EXPECT_EQ(server_.Await("alice", history)["structuredContent"]["records"].size(), 2u);
  const std::string id = server_.Await("alice", sent)["structuredContent"]["message_id"];
  const json mail = server_.Await("alice", listed)["structuredContent"]["messages"];
  ASSERT_EQ(mail.size(), 1u) << mail.dump();
  EXPECT_EQ(mail[0]["message_id"], id);
}

// las__inspect_events sent with a write shows it, as the state reads do (probe FD2: its
// page ended before the StateWritten decided ahead of it in the same turn).
TEST(CoordinationAdminReadTest, InspectEventsSentWithAWriteShowsIt) {
  testing::TempDir tmp;
  CoordinationHarness server(tmp.Sub("log"));
  server.AddAdmin();
  server.Open();
  const int set = server.Send("alice", "las__state_set", R"({"key":"k","value":1})");
  const int inspected = server.Send("alice", "las__inspect_events", R"({"limit":200})");
  EXPECT_EQ(server.Await("alice", set)["structuredContent"]["version"], 1);
  const json page = server.Await("alice", inspected)["structuredContent"];
  ASSERT_TRUE(page["events"].is_array()) << page.dump();
  EXPECT_TRUE(std::any_of(page["events"].begin(), page["events"].end(),
                          [](const json& e) { return e["kind"] == "StateWritten"; }))
      << page.dump();
}

TEST_F(CoordinationToolsTest, TwoCasDecidedBeforeEitherIsFoldedCannotBothWin) {
  Ok("alice", "las__state_set", {{"scope", "blackboard"}, {"key", "c"}, {"value", 0}});
  const std::string cas = json{{"scope", "blackboard"}, {"key", "c"}, {"expected_version", 1},
                               {"value", 1}}
                              .dump();
  // Both calls are decided on the loop before either append completes.
  const int a = server_.Send("alice", "las__state_cas", cas);
  const int b = server_.Send("bob", "las__state_cas", cas);
  json ra = server_.Await("alice", a);
  json rb = server_.Await("bob", b);
  const bool a_won = !ra.value("isError", false);
  const bool b_won = !rb.value("isError", false);
  EXPECT_NE(a_won, b_won) << ra.dump() << rb.dump();
  const json& loser = a_won ? rb : ra;
  EXPECT_EQ(loser["structuredContent"]["error"]["code"], "version-conflict");
  EXPECT_EQ(loser["structuredContent"]["error"]["current_version"], 2);
  json got = Ok("alice", "las__state_get", {{"scope", "blackboard"}, {"key", "c"}});
  EXPECT_EQ(got["record"]["version"], 2);
  EXPECT_EQ(got["record"]["author_agent_id"], a_won ? "alice" : "bob");
}

TEST_F(CoordinationToolsTest, ACasConflictChangesNothingAndTellsTheCurrentVersion) {
  Ok("alice", "las__state_cas", {{"key", "x"}, {"expected_version", 0}, {"value", "first"}});
  EXPECT_EQ(ErrorCode("alice", "las__state_cas",
                      R"({"key":"x","expected_version":0,"value":"second"})"),
            "version-conflict");
  // The refusal is a tool error after the call; no StateWritten was appended.
  ASSERT_TRUE(server_.live().CatchUp().ok());
  json got = Ok("alice", "las__state_get", {{"key", "x"}});
  EXPECT_EQ(got["record"]["value"], "first");
  EXPECT_EQ(got["record"]["version"], 1);
  json hist = Ok("alice", "las__state_history", {{"key", "x"}});
  EXPECT_EQ(hist["records"].size(), 1u);
  EXPECT_EQ(Ok("alice", "las__state_cas",
               {{"key", "x"}, {"expected_version", 1}, {"value", "second"}})["version"], 2);
}

TEST_F(CoordinationToolsTest, IntegersOfAnySizeSurviveExactly) {
  const std::string big = "123456789012345678901234567890123456789";
  std::string raw;
  server_.Call("alice", "las__state_set",
               R"({"key":"big","value":{"n":)" + big + R"(,"m":-)" + big + "}}");
  server_.Call("alice", "las__state_get", R"({"key":"big"})", &raw);
  EXPECT_NE(raw.find(R"({\"m\":-)" + big + R"(,\"n\":)" + big + "}"), std::string::npos)
      << "canonical text in the content item: " << raw;
  EXPECT_NE(raw.find(R"("value":{"m":-)" + big + R"(,"n":)" + big + "}"), std::string::npos)
      << "structuredContent spliced exactly: " << raw;
  // max compares them exactly.
  Ok("alice", "las__state_set", {{"key", "m"}, {"value_json", "9007199254740993"}});
  server_.Call("alice", "las__state_set",
               R"({"key":"m","reducer":"max","value":9007199254740992})");
  server_.Call("alice", "las__state_get", R"({"key":"m"})", &raw);
  EXPECT_NE(raw.find(R"("value":9007199254740993)"), std::string::npos) << raw;
}

TEST_F(CoordinationToolsTest, NonJsonValuesAreRefusedWithAClearError) {
  for (const std::string bad : {"NaN", "Infinity", "-Infinity", "1e400", R"({"a":1,"a":2})",
                                "[1,", "{'a':1}", "1 2", R"("\ud800")", "", "undefined"}) {
    json result = Call("alice", "las__state_set", {{"key", "k"}, {"value_json", bad}});
    ASSERT_TRUE(result.is_object()) << bad;
    ASSERT_TRUE(result.value("isError", false)) << bad;
    EXPECT_EQ(result["structuredContent"]["error"]["code"], "invalid-value") << bad;
    EXPECT_FALSE(result["structuredContent"]["error"]["message"].get<std::string>().empty());
  }
  // Both forms at once is a mistake in the arguments, not in the value.
  for (const std::string tool : {"las__state_set", "las__message_send"}) {
    const std::string field = tool == "las__state_set" ? "value" : "body";
    json both = tool == "las__state_set" ? json{{"key", "k"}} : json{{"to", "bob"}};
    both[field] = 1;
    both[field + "_json"] = "2";
    json result = Call("alice", tool, both);
    ASSERT_TRUE(result.value("isError", false)) << tool;
    EXPECT_EQ(result["structuredContent"]["error"]["code"], "invalid-arguments") << tool;
  }
  // Duplicate keys in the arguments themselves are refused too (by the gateway's strict
  // schema check, before the tool runs).
  std::string raw;
  EXPECT_TRUE(server_.Call("alice", "las__state_set", R"({"key":"k","value":{"a":1,"a":2}})", &raw)
                  .is_null());
  EXPECT_EQ(json::parse(raw)["error"]["code"], -32602) << raw;
  EXPECT_EQ(Ok("alice", "las__state_get", {{"key", "k"}})["found"], false);
}

TEST_F(CoordinationToolsTest, EachLasStdReducer) {
  auto set = [&](const std::string& key, const std::string& reducer, const json& value) {
    return Call("alice", "las__state_set", {{"key", key}, {"reducer", reducer}, {"value", value}});
  };
  auto value = [&](const std::string& key) {
    return Ok("alice", "las__state_get", {{"key", key}})["record"]["value"];
  };
  set("r", "replace", 1);
  set("r", "replace", "x");
  EXPECT_EQ(value("r"), "x");
  Ok("alice", "las__state_append", {{"key", "a"}, {"value", 1}});
  set("a", "append", {2});
  EXPECT_EQ(value("a"), json::parse("[1,[2]]"));
  set("m", "max", 3);
  set("m", "max", 2);
  set("m", "max", 7.5);
  EXPECT_EQ(value("m"), 7.5);
  set("o", "merge_object", {{"a", 1}, {"b", 1}});
  set("o", "merge_object", {{"b", 2}, {"c", 3}});
  EXPECT_EQ(value("o"), json::parse(R"({"a":1,"b":2,"c":3})"));
  set("s", "set_union", {1, 2});
  set("s", "set_union", {2, 3, 3});
  EXPECT_EQ(value("s"), json::parse("[1,2,3]"));
  json refused = set("o", "append", 1);
  EXPECT_EQ(refused["structuredContent"]["error"]["code"], "not-an-array");
  json history = Ok("alice", "las__state_history", {{"key", "m"}});
  ASSERT_EQ(history["records"].size(), 3u);
  EXPECT_EQ(history["records"][1]["reducer"], "max");
  EXPECT_EQ(history["records"][1]["value"], 3) << "max kept the current value";

  // 64 levels is the most a value may nest; append would wrap such an operand in one more.
  std::string deepest;
  for (int i = 0; i < 64; ++i) deepest += '[';
  for (int i = 0; i < 64; ++i) deepest += ']';
  EXPECT_EQ(ErrorCode("alice", "las__state_append",
                      json{{"key", "deep"}, {"value_json", deepest}}.dump()),
            "invalid-value");
  Ok("alice", "las__state_set", {{"key", "deep"}, {"value_json", deepest}});
  EXPECT_EQ(ErrorCode("alice", "las__state_set",
                      json{{"key", "deep"}, {"reducer", "merge_object"}, {"value", json::object()}}.dump()),
            "not-an-object")
      << "the stored 64-level value still reads back for a reducer";
}

TEST_F(CoordinationToolsTest, ListPagesByLimitAndBy64KiB) {
  for (int i = 0; i < 150; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%03d", i);
    server_.Send("alice", "las__state_set", json{{"key", key}, {"value", i}}.dump());
  }
  json last = Ok("alice", "las__state_set", {{"key", "k999"}, {"value", 0}});
  json page1 = Ok("alice", "las__state_list", json::object());
  ASSERT_EQ(page1["records"].size(), 100u) << "limit defaults to the maximum, 100";
  EXPECT_EQ(page1["next"], "k099");
  EXPECT_EQ(page1["truncated"], false);
  json page2 = Ok("alice", "las__state_list", {{"after_key", "k099"}, {"limit", 100}});
  EXPECT_EQ(page2["records"].size(), 51u);
  EXPECT_TRUE(page2["next"].is_null());
  // JSON Schema's "integer" admits 2.0: it is a limit of 2, not "no limit given".
  EXPECT_EQ(Ok("alice", "las__state_list", {{"limit", 2.0}})["records"].size(), 2u);
  // The schema refuses a limit above 100.
  json over = Call("alice", "las__state_list", {{"limit", 101}});
  EXPECT_TRUE(over.is_null() || over.value("isError", false)) << over.dump();

  // Values of 10 KiB: the response carries each record twice (the text item and
  // structuredContent), so at most three fit in 64 KiB; walking `next` sees every key once.
  const std::string ten_k(10 * 1024, 'v');
  for (int i = 0; i < 20; ++i) {
    Ok("alice", "las__state_set",
       {{"scope", "blackboard"}, {"key", "big" + std::to_string(100 + i)}, {"value", ten_k}});
  }
  std::set<std::string> seen;
  std::string after;
  int pages = 0;
  while (true) {
    std::string raw;
    json args = {{"scope", "blackboard"}, {"limit", 100}};
    if (!after.empty()) args["after_key"] = after;
    json page = server_.Call("alice", "las__state_list", args.dump(), &raw)["structuredContent"];
    ++pages;
    EXPECT_LE(raw.size(), 64u * 1024) << "the encoded response stays within 64 KiB";
    for (const auto& r : page["records"]) EXPECT_TRUE(seen.insert(r["key"]).second);
    if (page["next"].is_null()) {
      EXPECT_EQ(page["truncated"], false);
      break;
    }
    EXPECT_EQ(page["truncated"], true);
    after = page["next"];
  }
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_GE(pages, 7);
}

// `next` is written escaped: a key of control characters takes six bytes per character
// (seven more in the text item), and a page ended by it must still stay within 64 KiB.
TEST_F(CoordinationToolsTest, AListPageStaysWithin64KiBWhenItsNextKeyIsEscaped) {
  const std::string controls(248, '\x01');
  for (int group = 0; group < 24; ++group) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "g%03d", group);
    for (int i = 0; i < 4; ++i) {
      const size_t size = 14'500 + (i == 3 ? 40 * static_cast<size_t>(group) : 0);
      Ok("alice", "las__state_set",
         {{"scope", "blackboard"}, {"key", controls + prefix + static_cast<char>('a' + i)},
          {"value", std::string(size, 'v')}});
    }
  }
  for (int group = 0; group < 24; ++group) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "g%03d", group);
    for (int limit : {4, 5}) {
      std::string raw;
      json page = server_.Call("alice", "las__state_list",
                               json{{"scope", "blackboard"}, {"after_key", controls + prefix},
                                    {"limit", limit}}.dump(),
                               &raw);
      ASSERT_TRUE(page.is_object()) << raw.substr(0, 200);
      EXPECT_FALSE(page.value("isError", false));
      EXPECT_LE(raw.size(), 64u * 1024) << "group " << group << " limit " << limit;
    }
  }
}

TEST_F(CoordinationToolsTest, HistoryPages) {
  for (int i = 1; i <= 7; ++i) Ok("alice", "las__state_set", {{"key", "h"}, {"value", i}});
  json p1 = Ok("alice", "las__state_history", {{"key", "h"}, {"limit", 3}});
  ASSERT_EQ(p1["records"].size(), 3u);
  EXPECT_EQ(p1["records"][0]["version"], 1);
  EXPECT_EQ(p1["next"], 3);
  json p2 = Ok("alice", "las__state_history", {{"key", "h"}, {"after_version", 3}, {"limit", 3}});
  EXPECT_EQ(p2["records"][0]["value"], 4);
  EXPECT_EQ(p2["next"], 6);
  json p3 = Ok("alice", "las__state_history", {{"key", "h"}, {"after_version", 6}});
  EXPECT_EQ(p3["records"].size(), 1u);
  EXPECT_TRUE(p3["next"].is_null());
  // Every older value comes back exactly (from the log: memory keeps only the current one).
  json all = Ok("alice", "las__state_history", {{"key", "h"}});
  ASSERT_EQ(all["records"].size(), 7u);
  for (int i = 1; i <= 7; ++i) EXPECT_EQ(all["records"][i - 1]["value"], i);
  ASSERT_TRUE(server_.live().CatchUp().ok());
  const auto* key = reducers::FindKey(
      server_.live().Get<projections::StateProjection>("state")->store(), false, "alice", "h");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->sequences.size(), 7u);
  EXPECT_EQ(key->current.value, "7");
}

// History pages are bounded by the whole response too: 10 KiB versions, three a page.
TEST_F(CoordinationToolsTest, AHistoryPageStaysWithin64KiBOfResponse) {
  for (int i = 0; i < 10; ++i) {
    Ok("alice", "las__state_set", {{"key", "h"}, {"value", std::string(10 * 1024, static_cast<char>('a' + i))}});
  }
  uint64_t after = 0;
  std::vector<uint64_t> versions;
  for (int pages = 0; pages < 20; ++pages) {
    std::string raw;
    json page = server_.Call("alice", "las__state_history",
                             json{{"key", "h"}, {"after_version", after}}.dump(), &raw);
    EXPECT_LE(raw.size(), 64u * 1024) << "after_version " << after;
    for (const auto& r : page["structuredContent"]["records"]) versions.push_back(r["version"]);
    if (page["structuredContent"]["next"].is_null()) break;
    EXPECT_EQ(page["structuredContent"]["truncated"], true);
    after = page["structuredContent"]["next"];
  }
  EXPECT_EQ(versions, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

// A mailbox page is bounded by the whole response: 100 subjects of 1 KiB of quotes are
// 2 KiB each as JSON and 4 KiB again in the text item.
TEST_F(CoordinationToolsTest, AMessagePageStaysWithin64KiBOfResponse) {
  const std::string quotes(1024, '"');
  for (int i = 0; i < 100; ++i) {
    server_.Send("alice", "las__message_send",
                 json{{"to", "bob"}, {"subject", quotes}, {"body", i}}.dump());
  }
  Ok("alice", "las__message_send", {{"to", "bob"}, {"subject", quotes}, {"body", 100}});
  std::set<std::string> seen;
  json after;
  for (int pages = 0; pages < 101; ++pages) {
    json args = json::object();
    if (!after.is_null()) args["after"] = after;
    std::string raw;
    json page = server_.Call("bob", "las__message_list", args.dump(), &raw)["structuredContent"];
    EXPECT_LE(raw.size(), 64u * 1024);
    for (const auto& m : page["messages"]) EXPECT_TRUE(seen.insert(m["message_id"]).second);
    after = page["next"];
    if (after.is_null()) break;
  }
  EXPECT_EQ(seen.size(), 101u);
}

// Every line is written with a raw U+0085, U+2028 or U+2029 as its \u escape
// (transport/line_breaks.h), and the page bound counts the line so written: values, versions
// and subjects of U+2028 (3 bytes, 6 on the line, in both copies) took pages to ~120 KiB
// (probe JX1).
TEST_F(CoordinationToolsTest, PagesOfLineBreakTextStayWithin64KiBAsWritten) {
  std::string breaks;
  for (int i = 0; i < 1'666; ++i) breaks += "\u2028";
  std::string subject;
  for (int i = 0; i < 170; ++i) subject += "\u2028\u0085";
  for (int i = 0; i < 10; ++i) {
    Ok("alice", "las__state_set",
       {{"scope", "blackboard"}, {"key", "k" + std::to_string(i)}, {"value", breaks}});
    Ok("alice", "las__state_set", {{"key", "h"}, {"value", breaks + std::to_string(i)}});
  }
  for (int i = 0; i < 60; ++i) {
    Ok("alice", "las__message_send", {{"to", "bob"}, {"subject", subject}, {"body", i}});
  }
  // Walks one listing's pages; returns how many items it saw.
  auto walk = [&](const std::string& agent, const std::string& tool, json args,
                  const std::string& items, const std::string& cursor) {
    size_t seen = 0;
    for (int pages = 0; pages < 100; ++pages) {
      std::string raw;
      const json page = server_.Call(agent, tool, args.dump(), &raw)["structuredContent"];
      transport::EscapeLineBreaksOfOtherReaders(raw);
      EXPECT_LE(raw.size(), 64u * 1024) << tool << " page " << pages;
      seen += page[items].size();
      if (page["next"].is_null()) break;
      EXPECT_GT(page[items].size(), 1u);
      args[cursor] = page["next"];
    }
    return seen;
  };
  EXPECT_EQ(walk("alice", "las__state_list", {{"scope", "blackboard"}}, "records", "after_key"), 10u);
  EXPECT_EQ(walk("alice", "las__state_history", {{"key", "h"}}, "records", "after_version"), 10u);
  EXPECT_EQ(walk("bob", "las__message_list", json::object(), "messages", "after"), 60u);
}

// The frame a page keeps room for holds the request's id as written: 256 bytes of raw
// U+0085 are 764 on the line. With 512 bytes kept, pages of 42 messages reached 65,676
// bytes (probe KD1).
TEST_F(CoordinationToolsTest, PagesStayWithin64KiBWhateverTheRequestIdAsWritten) {
  for (int i = 0; i < 300; ++i) {
    Ok("alice", "las__message_send",
       {{"to", "bob"}, {"subject", std::string(600 + i % 37, 'a')}, {"body", i}});
  }
  std::string id;
  for (int i = 0; i < 127; ++i) id += "\u0085";
  const std::string id_json = json(id).dump();
  ASSERT_EQ(id_json.size(), 256u) << "the longest id a request may carry";
  size_t seen = 0;
  json args = json::object();
  for (int pages = 0; pages < 100; ++pages) {
    std::string raw = server_.CallWithTextId("bob", "las__message_list", args.dump(), id_json);
    ASSERT_FALSE(raw.empty());
    transport::EscapeLineBreaksOfOtherReaders(raw);
    const json page = json::parse(raw)["result"]["structuredContent"];
    EXPECT_LE(raw.size(), 64u * 1024) << "page " << pages;
    seen += page["messages"].size();
    if (page["next"].is_null()) break;
    args["after"] = page["next"];
  }
  EXPECT_EQ(seen, 300u);
}

// A reference to a handle another call is still creating is answered only once that
// handle is on disk: two gets of one large value in one turn, the second adds no event of
// its own, and was answered before the first's HandleCreated was synced (a crash then lost
// a handle the agent had been told of).
TEST_F(CoordinationToolsTest, AHandleBeingCreatedIsNamedOnlyOnceItIsDurable) {
  const std::string text(200'000, 'h');
  Ok("alice", "las__state_set", {{"key", "big"}, {"value", text}});
  const std::string get = json{{"key", "big"}}.dump();
  const int first = server_.Send("alice", "las__state_get", get);
  const int second = server_.Send("alice", "las__state_get", get);
  const json answer = server_.Await("alice", second);
  ASSERT_TRUE(answer.is_object());
  EXPECT_TRUE(server_.Answered("alice", first))
      << "the second get named the handle before the first's HandleCreated was durable";
  EXPECT_EQ(server_.Await("alice", first)["structuredContent"]["record"]["handle"],
            answer["structuredContent"]["record"]["handle"]);
}

TEST_F(CoordinationToolsTest, LargeValuesComeBackAsHandlesOnlyTheirOwnerCanRead) {
  std::string text;
  for (int i = 0; i < 6000; ++i) text += "zażółć " + std::to_string(i) + " ";
  Ok("alice", "las__state_set", {{"scope", "blackboard"}, {"key", "doc"}, {"value", text}});
  json record = Ok("alice", "las__state_get", {{"scope", "blackboard"}, {"key", "doc"}})["record"];
  ASSERT_FALSE(record.contains("value"));
  const json handle = record["handle"];
  const std::string canonical = json(text).dump();
  EXPECT_EQ(handle["size"], canonical.size());
  EXPECT_EQ(handle["media_type"], "application/json");
  // Named from the digest the log recorded (no hash of the value per read, probe EQ2): the
  // same id its content gives anywhere else.
  EXPECT_EQ(handle["handle_id"], tools::HandleIdFor("alice", canonical));

  // The owner reads it back in bounded spans, cut at character boundaries.
  std::string back;
  json offset = 0;
  while (!offset.is_null()) {
    json span = Ok("alice", "las__handle_read",
                   {{"handle_id", handle["handle_id"]}, {"offset", offset}, {"length", 10000}});
    EXPECT_LE(span["length"].get<size_t>(), 10000u);
    back += span["text"].get<std::string>();
    offset = span["next_offset"];
  }
  EXPECT_EQ(back, canonical);
  // The projection keeps the handle's metadata, not its ~60 KB of content: that stays in
  // the HandleCreated event, where the read above fetched it.
  std::string saved;
  ASSERT_TRUE(server_.live().set().Find("handles")->Save(saved));
  EXPECT_LT(saved.size(), 1024u);
  // Reading twice makes no second handle.
  auto handles = [&] {
    EXPECT_TRUE(server_.live().CatchUp().ok());
    return server_.live().Get<projections::HandlesProjection>("handles")->handles().by_id.size();
  };
  const size_t count = handles();
  Ok("alice", "las__state_get", {{"scope", "blackboard"}, {"key", "doc"}});
  EXPECT_EQ(handles(), count);

  // Bob cannot read alice's handle, and cannot tell it from a missing one.
  EXPECT_EQ(ErrorCode("bob", "las__handle_read",
                      json{{"handle_id", handle["handle_id"]}}.dump()),
            "handle-not-found");
  EXPECT_EQ(ErrorCode("bob", "las__handle_read", R"({"handle_id":"h-none"})"),
            "handle-not-found");
  // Bob's own read of the shared value gives bob his own handle.
  json bobs = Ok("bob", "las__state_get", {{"scope", "blackboard"}, {"key", "doc"}})["record"];
  EXPECT_NE(bobs["handle"]["handle_id"], handle["handle_id"]);
  json own = Call("bob", "las__handle_read", {{"handle_id", bobs["handle"]["handle_id"]}});
  ASSERT_TRUE(own.is_object());
  EXPECT_FALSE(own.value("isError", false));
  EXPECT_EQ(own["structuredContent"]["size"], canonical.size());
}

TEST_F(CoordinationToolsTest, MessagesUnreadFirstPagedReadDeferComplete) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(Ok("alice", "las__message_send",
                     {{"to", "bob"}, {"subject", "s" + std::to_string(i)}, {"body", {{"i", i}}}})
                      ["message_id"]);
  }
  json read = Ok("bob", "las__message_read", {{"message_id", ids[0]}});
  EXPECT_EQ(read["state"], "read") << "the state after the read";
  EXPECT_EQ(read["body"]["i"], 0);
  EXPECT_EQ(read["from_agent_id"], "alice");
  EXPECT_EQ(read["sent_micros"].get<int64_t>() > 0, true);
  // Alice cannot read bob's mail.
  EXPECT_EQ(ErrorCode("alice", "las__message_read", json{{"message_id", ids[1]}}.dump()),
            "message-not-found");

  json page1 = Ok("bob", "las__message_list", {{"limit", 3}});
  ASSERT_EQ(page1["messages"].size(), 3u);
  EXPECT_EQ(page1["messages"][0]["message_id"], ids[1]) << "unread first";
  EXPECT_EQ(page1["messages"][0]["state"], "unread");
  // The cursor names the page's last message, never a log sequence (probe IH2); another
  // agent cannot page with it.
  EXPECT_EQ(page1["next"], "0:" + page1["messages"][2]["message_id"].get<std::string>());
  EXPECT_EQ(ErrorCode("alice", "las__message_list", json{{"after", page1["next"]}}.dump()),
            "invalid-arguments");
  json page2 = Ok("bob", "las__message_list", {{"limit", 3}, {"after", page1["next"]}});
  ASSERT_EQ(page2["messages"].size(), 2u);
  EXPECT_EQ(page2["messages"][0]["message_id"], ids[4]);
  EXPECT_EQ(page2["messages"][1]["message_id"], ids[0]);
  EXPECT_EQ(page2["messages"][1]["state"], "read");
  EXPECT_TRUE(page2["next"].is_null());
  // A cursor Las did not hand out is refused rather than read as "from the top".
  for (const char* bad : {"garbage", "1:", ":5", "9:1", "-1:0", "0:5x", " 0:5", "0x1:2", "00:0", "0:005", "+1:2"}) {
    EXPECT_EQ(ErrorCode("bob", "las__message_list", json{{"after", bad}}.dump()),
              "invalid-arguments")
        << bad;
  }

  Ok("bob", "las__message_defer", {{"message_id", ids[1]}, {"seconds", 60}});
  Ok("bob", "las__message_complete", {{"message_id", ids[2]}});
  json now = Ok("bob", "las__message_list", json::object());
  std::vector<std::string> order, states;
  for (const auto& m : now["messages"]) {
    order.push_back(m["message_id"]);
    states.push_back(m["state"]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{ids[3], ids[4], ids[0], ids[1]}));
  EXPECT_EQ(states.back(), "deferred");
  json reread = Ok("bob", "las__message_read", {{"message_id", ids[1]}});
  EXPECT_EQ(reread["state"], "read") << "reading ends the deferral";
  EXPECT_FALSE(reread.contains("deferred_until_micros"));
  Ok("bob", "las__message_defer", {{"message_id", ids[1]}, {"seconds", 60}});
  server_.clock().Advance(61'000'000);
  json later = Ok("bob", "las__message_list", {{"include_completed", true}});
  EXPECT_EQ(later["messages"][0]["message_id"], ids[1]) << "a deferral that ran out is unread";
  EXPECT_FALSE(later["messages"][0].contains("deferred_until_micros")) << "nor shown";
  Ok("bob", "las__message_defer", {{"message_id", ids[1]}, {"seconds", 60}});
  Ok("bob", "las__message_complete", {{"message_id", ids[1]}});
  EXPECT_FALSE(Ok("bob", "las__message_read", {{"message_id", ids[1]}})
                   .contains("deferred_until_micros"))
      << "a completed message is not put aside (BX3)";
  EXPECT_EQ(later["messages"].back()["state"], "completed");
  EXPECT_EQ(ErrorCode("bob", "las__message_defer",
                      json{{"message_id", ids[2]}, {"seconds", 5}}.dump()),
            "message-completed");
}

// Calls on one message sent together (pipelined) each see the completion the earlier ones
// decided, although it is not yet folded: it is completed once and not deferred after it;
// a read after it leaves it completed, and is recorded: it handed out the body.
TEST_F(CoordinationToolsTest, PipelinedCallsOnAMessageSeeItsCompletion) {
  const std::string id =
      Ok("alice", "las__message_send", {{"to", "bob"}, {"body", "hi"}})["message_id"];
  const uint64_t before = server_.log().head().sequence;
  const std::string message = json{{"message_id", id}}.dump();
  const int first = server_.Send("bob", "las__message_complete", message);
  const int second = server_.Send("bob", "las__message_complete", message);
  const int defer =
      server_.Send("bob", "las__message_defer", json{{"message_id", id}, {"seconds", 60}}.dump());
  const int read = server_.Send("bob", "las__message_read", message);
  const auto state_of = [this](int request) {
    const json result = server_.Await("bob", request);
    return result.is_object() ? result.value("structuredContent", json::object()).value("state", "")
                              : std::string("(no result)");
  };
  EXPECT_EQ(state_of(first), "completed");
  EXPECT_EQ(state_of(second), "completed");
  const json deferred = server_.Await("bob", defer);
  ASSERT_TRUE(deferred.is_object());
  EXPECT_EQ(deferred.value("structuredContent", json::object()).value("error", json::object()).value("code", ""),
            "message-completed")
      << deferred.dump();
  EXPECT_EQ(state_of(read), "completed");
  std::multiset<std::string> kinds;
  auto cursor = server_.log().Read(before + 1);
  ASSERT_TRUE(cursor.ok());
  while (true) {
    auto next = (*cursor)->Next();
    ASSERT_TRUE(next.ok());
    if (!*next) break;
    kinds.insert(json::parse(log::EventToJson((*cursor)->current()))["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds.count("MessageCompleted"), 1u);
  EXPECT_EQ(kinds.count("MessageDeferred"), 0u);
  EXPECT_EQ(kinds.count("MessageRead"), 1u);
}

// Probe BN4: a message completed before it was ever read, then read, handed out its body
// with no MessageRead, so the trail and the mailbox said it was never read. Reading it
// again once it is known read adds nothing.
TEST_F(CoordinationToolsTest, ReadingAMessageCompletedUnreadIsRecordedAndItStaysCompleted) {
  const std::string id =
      Ok("alice", "las__message_send", {{"to", "bob"}, {"body", "the body"}})["message_id"];
  Ok("bob", "las__message_complete", {{"message_id", id}});
  const uint64_t before = server_.log().head().sequence;
  json read = Ok("bob", "las__message_read", {{"message_id", id}});
  EXPECT_EQ(read["state"], "completed");
  EXPECT_EQ(read["body"], "the body");
  EXPECT_EQ(server_.log().head().sequence, before + 1);
  auto cursor = server_.log().Read(before + 1);
  ASSERT_TRUE(cursor.ok());
  auto next = (*cursor)->Next();
  ASSERT_TRUE(next.ok() && *next);
  const json event = json::parse(log::EventToJson((*cursor)->current()));
  EXPECT_EQ(event["kind"], "MessageRead");
  EXPECT_EQ(event["agent"], "bob");
  Ok("bob", "las__message_read", {{"message_id", id}});
  EXPECT_EQ(server_.log().head().sequence, before + 1) << "known read: not recorded again";
  json listed = Ok("bob", "las__message_list", {{"include_completed", true}});
  ASSERT_EQ(listed["messages"].size(), 1u);
  EXPECT_EQ(listed["messages"][0]["state"], "completed");
}

TEST_F(CoordinationToolsTest, ALargeBodyIsReadFromTheLogAndComesBackAsAHandle) {
  const std::string text(40000, 'm');
  const std::string id = Ok("alice", "las__message_send",
                            {{"to", "bob"}, {"subject", "big"}, {"body", text}})["message_id"];
  json read = Ok("bob", "las__message_read", {{"message_id", id}});
  ASSERT_FALSE(read.contains("body"));
  json span = Ok("bob", "las__handle_read",
                 {{"handle_id", read["body_handle"]["handle_id"]}, {"length", 65536}});
  EXPECT_EQ(span["text"], json(text).dump());
  // The mailbox keeps the body's size, not its 40 KB: that stays in the MessageSent event.
  ASSERT_TRUE(server_.live().CatchUp().ok());
  std::string saved;
  ASSERT_TRUE(server_.live().set().Find("mailbox")->Save(saved));
  EXPECT_LT(saved.size(), 1024u);
}

TEST_F(CoordinationToolsTest, MessagesGoOnlyToPrintableAgentIds) {
  for (const std::string& to : {std::string("evil\x1b[2J"), std::string("a\nb"), std::string(257, 'a'),
                                std::string("abc\u202e")}) {
    EXPECT_EQ(ErrorCode("alice", "las__message_send", json{{"to", to}, {"body", "hi"}}.dump()), "invalid-agent")
        << to;
  }
  Ok("alice", "las__message_send", {{"to", "J\u00f6rg"}, {"body", "hi"}});
}

// A span shorter than the character at its offset comes back as that whole character,
// never as part of one (which put invalid UTF-8 on the wire and lost the rest).
TEST_F(CoordinationToolsTest, TinySpansOfAHandleNeverSplitACharacter) {
  std::string text;
  while (text.size() < 20000) text += "\u00e9\u65e5\U0001F600";
  const std::string id = Ok("alice", "las__message_send",
                            {{"to", "bob"}, {"subject", "wide"}, {"body", text}})["message_id"];
  json read = Ok("bob", "las__message_read", {{"message_id", id}});
  ASSERT_TRUE(read.contains("body_handle"));
  const std::string handle = read["body_handle"]["handle_id"];
  for (int length : {1, 2, 3}) {
    std::string joined;
    uint64_t offset = 0;
    int spans = 0;
    while (true) {
      const int span_length = spans < 200 ? length : 65536;  // tiny spans, then the rest
      json span = Ok("bob", "las__handle_read",
                     {{"handle_id", handle}, {"offset", offset}, {"length", span_length}});
      const std::string piece = span["text"];  // parsed: valid UTF-8, or Ok() fails
      ASSERT_FALSE(piece.empty()) << "offset " << offset;
      if (span_length < 4) {
        ASSERT_LE(piece.size(), 4u);
      }
      joined += piece;
      ++spans;
      if (span["next_offset"].is_null()) break;
      offset = span["next_offset"];
    }
    EXPECT_EQ(joined, json(text).dump()) << "length " << length;
  }
  // An offset inside a character moves to the next one's start, one past the end to the
  // size; the answer's offset says where its text begins (docs/STATE.md).
  const std::string canonical = json(text).dump();
  const size_t inside = canonical.find("\xc3\xa9") + 1;
  json moved = Ok("bob", "las__handle_read", {{"handle_id", handle}, {"offset", inside}, {"length", 4}});
  EXPECT_EQ(moved["offset"], inside + 1);
  EXPECT_EQ(moved["text"], canonical.substr(inside + 1, moved["length"].get<size_t>()));
  json past = Ok("bob", "las__handle_read", {{"handle_id", handle}, {"offset", canonical.size() + 100}});
  EXPECT_EQ(past["offset"], canonical.size());
  EXPECT_EQ(past["length"], 0);
  EXPECT_EQ(past["eof"], true);
  EXPECT_TRUE(past["next_offset"].is_null());
  EXPECT_EQ(past["text"], "");
}

// Older values, bodies and handle contents are read back from the event at the sequence
// their record names; when that event is not the recorded one (a damaged or forged record)
// the read fails instead of answering another event's bytes.
TEST_F(CoordinationToolsTest, ReadingBackFromTheLogChecksTheEventIsTheRecordedOne) {
  Ok("alice", "las__state_set", {{"key", "h"}, {"value", 1}});
  Ok("alice", "las__state_set", {{"key", "h"}, {"value", 2}});
  const std::string id =
      Ok("alice", "las__message_send", {{"to", "bob"}, {"subject", "s"}, {"body", "b"}})
          ["message_id"];
  ASSERT_TRUE(server_.live().CatchUp().ok());
  Coordination c(server_.context(), {});
  const reducers::StateKey* key = reducers::FindKey(c.state(), false, "alice", "h");
  ASSERT_NE(key, nullptr);
  const reducers::VersionAt first{1, key->sequences.front(), key->hashes.front()};
  auto read = c.StateVersionAt(false, "alice", "h", first);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->value, "1");
  EXPECT_EQ(read->author_agent_id, "alice");
  EXPECT_EQ(read->reducer, "replace");
  EXPECT_EQ(read->version, 1u);
  EXPECT_EQ(read->sequence, first.sequence);
  EXPECT_EQ(read->value_sha256.size(), 64u);
  const reducers::MailMessage& message = c.mailboxes().by_id.at(id);
  EXPECT_EQ(*c.MessageBody(message), "\"b\"");

  const reducers::VersionAt wrong_version{1, key->current.sequence};  // the key's version 2
  EXPECT_EQ(c.StateVersionAt(false, "alice", "h", wrong_version).status().code(), Code::kCorruption);
  const reducers::VersionAt not_a_write{1, message.sent_sequence};
  EXPECT_EQ(c.StateVersionAt(false, "alice", "h", not_a_write).status().code(), Code::kCorruption);
  EXPECT_EQ(c.StateVersionAt(false, "alice", "other", first).status().code(), Code::kCorruption);
  EXPECT_EQ(c.StateVersionAt(false, "bob", "h", first).status().code(), Code::kCorruption);
  EXPECT_EQ(c.StateVersionAt(true, "", "h", first).status().code(), Code::kCorruption);
  reducers::MailMessage not_a_message = message;
  not_a_message.sent_sequence = first.sequence;
  EXPECT_EQ(c.MessageBody(not_a_message).status().code(), Code::kCorruption);
  reducers::HandleRecord not_a_handle;
  not_a_handle.handle_id = "h-forged";
  not_a_handle.sequence = message.sent_sequence;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(c.HandleContent(not_a_handle).status().code(), Code::kCorruption);
  const std::string told = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(told.find("las: the log fails verification (the event at sequence " +
                      std::to_string(message.sent_sequence) + " is not the HandleCreated"),
            std::string::npos)
      << "the operator is told, not only the caller: " << told;
  EXPECT_FALSE(c.StateVersionAt(false, "alice", "h", {1, 1'000'000, {}}).ok());
  // The right event, but not with the chain hash the record kept.
  reducers::VersionAt rehashed = first;
  rehashed.hash[0] ^= 1;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(c.StateVersionAt(false, "alice", "h", rehashed).status().code(), Code::kCorruption);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "the event at sequence " + std::to_string(first.sequence) +
                " is not the one folded: its chain hash changed"),
            std::string::npos);
}

// Rewrites the event at `sequence` in a closed log as one who can write the store would:
// `from` replaced by `to` (as long) inside its envelope and the event's own stored hash
// recomputed, the events after it (whose prev_hash no longer matches) left alone.
void EditInPlace(const std::string& dir, uint64_t sequence, std::string_view from,
                 std::string_view to) {
  ASSERT_EQ(from.size(), to.size());
  testing::RawDb db(dir);
  std::string stored = db.Get("events", testing::SequenceKey(sequence));
  const size_t at = stored.find(from, sizeof(log::Hash));
  ASSERT_NE(at, std::string::npos) << "sequence " << sequence;
  stored.replace(at, to.size(), to);
  const std::string before = db.Get("events", testing::SequenceKey(sequence - 1));
  log::Hash previous;
  std::memcpy(previous.data(), before.data(), previous.size());
  const std::string_view envelope = std::string_view(stored).substr(sizeof(log::Hash));
  const log::Hash hash = log::ChainHash(
      previous, {reinterpret_cast<const uint8_t*>(envelope.data()), envelope.size()});
  stored.replace(0, hash.size(), reinterpret_cast<const char*>(hash.data()), hash.size());
  db.Put("events", testing::SequenceKey(sequence), stored);
}

// Probe DJ1: a server started from a snapshot folds only the events after it, and a
// cursor checks an event against its own stored hash, so an older event edited in place
// with that hash recomputed (the chain broken only after it, where such a start does not
// look) was served as edited: an old state version, a message body, a handle's content.
// Each record now keeps the chain hash its event had when folded, and a read-back that
// finds another refuses the event, telling the operator.
TEST(CoordinationReadBackTest, AnOlderEventEditedInPlaceBehindASnapshotIsRefused) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  LiveOptions snapshots;
  snapshots.snapshot_every = 1;
  snapshots.snapshot_key_file = tmp.Sub("config/las/snapshot.key");
  snapshots.warn = [](std::string_view) {};
  CoordinationHarness server(dir);
  server.SetLiveOptions(snapshots);
  server.Open();
  auto ok = [&](const std::string& agent, const std::string& tool, const json& arguments) {
    json result = server.Call(agent, tool, arguments.dump());
    EXPECT_FALSE(result.value("isError", false)) << tool << " " << result.dump();
    return result["structuredContent"];
  };
  ok("alice", "las__state_set", {{"key", "h"}, {"value", "original-v1"}});
  ok("alice", "las__state_set", {{"key", "h"}, {"value", "second"}});
  const std::string message =
      ok("alice", "las__message_send", {{"to", "bob"}, {"body", "original-body"}})["message_id"];
  ok("alice", "las__state_set", {{"key", "large"}, {"value", std::string(20000, 'q')}});
  const std::string handle =
      ok("alice", "las__state_get", {{"key", "large"}})["record"]["handle"]["handle_id"];
  ok("alice", "las__state_set", {{"key", "after"}, {"value", 1}});  // none of them is the head
  ASSERT_TRUE(server.live().CatchUp().ok());
  uint64_t version_one = 0, sent = 0, created = 0;
  {
    Coordination c(server.context(), {});
    version_one = reducers::FindKey(c.state(), false, "alice", "h")->sequences.front();
    sent = c.mailboxes().by_id.at(message).sent_sequence;
    created = c.handles().by_id.at(handle).sequence;
  }
  server.Close();

  EditInPlace(dir, version_one, "original-v1", "forged---v1");
  EditInPlace(dir, sent, "original-body", "forged---body");
  EditInPlace(dir, created, "qqqqqqqq", "forged!!");

  server.Open();
  ASSERT_GT(server.live().startup().snapshot_sequence, std::max({version_one, sent, created}))
      << "the server started from a snapshot taken after the edited events";
  ::testing::internal::CaptureStderr();
  std::string raw;
  for (const auto& [agent, tool, arguments] :
       std::initializer_list<std::tuple<const char*, const char*, json>>{
           {"alice", "las__state_history", {{"key", "h"}}},
           {"bob", "las__message_read", {{"message_id", message}}},
           {"alice", "las__handle_read", {{"handle_id", handle}}}}) {
    json result = server.Call(agent, tool, arguments.dump(), &raw);
    // Refused: a tool error, or a JSON-RPC error (a null result).
    EXPECT_TRUE(result.is_null() || result.value("isError", false)) << tool << " " << raw;
    EXPECT_EQ(raw.find("forged"), std::string::npos) << tool << " " << raw;
  }
  const std::string told = ::testing::internal::GetCapturedStderr();
  for (uint64_t sequence : {version_one, sent, created}) {
    EXPECT_NE(told.find("the event at sequence " + std::to_string(sequence) +
                        " is not the one folded: its chain hash changed"),
              std::string::npos)
        << told;
  }
  // What the records themselves hold is still served.
  EXPECT_EQ(ok("alice", "las__state_get", {{"key", "h"}})["record"]["value"], "second");
}

// A handle read span by span is read from the log once: later spans reuse the content
// (tools/recent_contents.h), and a record naming another event is still checked.
TEST_F(CoordinationToolsTest, AHandleIsReadFromTheLogOnceForAllItsSpans) {
  const std::string text(20000, 'v');
  Ok("alice", "las__state_set", {{"key", "v"}, {"value", text}});
  const std::string id =
      Ok("alice", "las__state_get", {{"key", "v"}})["record"]["handle"]["handle_id"];
  ASSERT_TRUE(server_.live().CatchUp().ok());
  Coordination c(server_.context(), {});
  const reducers::HandleRecord& handle = c.handles().by_id.at(id);
  auto first = c.HandleContent(handle);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(**first, json(text).dump());
  auto again = c.HandleContent(handle);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first->get(), again->get()) << "the second read should reuse the first's content";
  reducers::HandleRecord elsewhere = handle;
  elsewhere.sequence = handle.sequence - 1;  // an event before its HandleCreated
  EXPECT_EQ(c.HandleContent(elsewhere).status().code(), Code::kCorruption);
}

std::vector<std::pair<std::string, std::string>> ReplayDigests(const std::string& dir) {
  auto reader = log::LogReader::Open(dir);
  EXPECT_TRUE(reader.ok());
  auto cursor = (*reader)->Read(1);
  EXPECT_TRUE(cursor.ok());
  projections::ProjectionSet set;
  auto outcome = projections::Replay(**cursor, {}, {}, set);
  EXPECT_TRUE(outcome.status.ok()) << outcome.status.ToString();
  return set.Digests();
}

TEST_F(CoordinationToolsTest, DigestsAreIdenticalAfterARestartAndInAReplay) {
  Ok("alice", "las__state_set", {{"key", "p"}, {"value", {{"deep", {1, 2, 3}}}}});
  Ok("alice", "las__state_set",
     {{"scope", "blackboard"}, {"key", "b"}, {"value_json", "1e3"}, {"reducer", "max"}});
  Ok("bob", "las__state_append", {{"scope", "blackboard"}, {"key", "log"}, {"value", "x"}});
  Ok("alice", "las__state_set", {{"key", "large"}, {"value", std::string(20000, 'q')}});
  Ok("alice", "las__state_get", {{"key", "large"}});
  std::string id = Ok("alice", "las__message_send", {{"to", "bob"}, {"body", "hi"}})["message_id"];
  Ok("bob", "las__message_defer", {{"message_id", id}, {"seconds", 10}});
  ASSERT_TRUE(server_.live().CatchUp().ok());
  const auto before = server_.live().set().Digests();
  std::set<std::string> names;
  for (const auto& [name, digest] : before) names.insert(name);
  for (const char* mine : {"state", "mailbox", "handles"}) EXPECT_TRUE(names.count(mine)) << mine;

  server_.Close();
  {
    // Each of the three projections saves a snapshot state that restores to its digest.
    auto log = log::EventLog::Open(tmp_.Sub("log"));
    ASSERT_TRUE(log.ok());
    LiveProjections live(**log);
    ASSERT_TRUE(live.CatchUp().ok());
    projections::StateProjection state;
    projections::MailboxProjection mailbox;
    projections::HandlesProjection handles;
    for (projections::Projection* fresh :
         std::initializer_list<projections::Projection*>{&state, &mailbox, &handles}) {
      std::string bytes;
      ASSERT_TRUE(live.set().Find(fresh->name())->Save(bytes));
      ASSERT_TRUE(fresh->Restore(bytes)) << fresh->name();
      EXPECT_EQ(projections::Digest(*fresh), projections::Digest(*live.set().Find(fresh->name())))
          << fresh->name();
      // The chain hashes the records keep are not in the digest: saved again, the same bytes.
      std::string again;
      ASSERT_TRUE(fresh->Save(again));
      EXPECT_EQ(again, bytes) << fresh->name();
    }
  }
  server_.Open();
  EXPECT_EQ(server_.live().set().Digests(), before) << "after a restart";
  EXPECT_EQ(ReplayDigests(tmp_.Sub("log")), before) << "in a replay";
  // And the state is there to use.
  EXPECT_EQ(Ok("alice", "las__state_get", {{"scope", "blackboard"}, {"key", "b"}})["record"]["value"],
            1000);
  EXPECT_EQ(Ok("alice", "las__state_cas", {{"key", "p"}, {"expected_version", 1}, {"value", 0}})
                ["version"],
            2);
}

}  // namespace
}  // namespace las::tools
