// reducers/state_store.h and reducers/mailbox.h folded from real event drafts.
#include "reducers/state_store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "reducers/mailbox.h"
#include "tools/coordination_events.h"

namespace las::reducers {
namespace {

const fb::Envelope& Env(const log::EventDraft& draft) {
  return *flatbuffers::GetRoot<fb::Envelope>(draft.envelope.data());
}

class StateStoreTest : public ::testing::Test {
 protected:
  void Write(const std::string& agent, bool blackboard, const std::string& key, uint64_t version,
             const std::string& value) {
    auto draft = tools::StateWrittenEvent({agent, "s"}, blackboard, agent, key, version,
                                          "replace", value);
    Apply(store_, ++sequence_, log::Hash{}, Env(draft));
  }
  StateStore store_;
  uint64_t sequence_ = 0;
};

TEST_F(StateStoreTest, VersionsPerKeyPerSpace) {
  Write("alice", false, "k", 1, "1");
  Write("alice", false, "k", 2, "2");
  Write("bob", false, "k", 1, "\"b\"");
  Write("bob", true, "k", 1, "\"shared\"");
  const StateKey* mine = FindKey(store_, false, "alice", "k");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->current.version, 2u);
  EXPECT_EQ(mine->current.value, "2");
  EXPECT_EQ(mine->current.author_agent_id, "alice");
  EXPECT_EQ(mine->current.sequence, 2u);
  EXPECT_EQ(mine->current.value_sha256.size(), 64u);
  // Of the older version only where its StateWritten event is: the rest is in the log.
  EXPECT_EQ(mine->sequences, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(FindKey(store_, false, "bob", "k")->current.value, "\"b\"");
  EXPECT_EQ(FindKey(store_, true, "", "k")->current.value, "\"shared\"");
  EXPECT_EQ(FindKey(store_, true, "", "k")->current.author_agent_id, "bob");
  EXPECT_EQ(FindKey(store_, false, "carol", "k"), nullptr);
  EXPECT_EQ(store_.private_by_agent.count(""), 0u) << "the blackboard is not an agent";
}

TEST_F(StateStoreTest, AVersionThatDoesNotFollowIsSkippedAndChangesNothing) {
  Write("alice", true, "k", 1, "1");
  Write("alice", true, "k", 1, "99");  // a second write of version 1 (a lost CAS)
  Write("alice", true, "k", 3, "99");  // a gap
  const StateKey* key = FindKey(store_, true, "", "k");
  EXPECT_EQ(key->sequences, std::vector<uint64_t>{1});
  EXPECT_EQ(key->current.value, "1");
  EXPECT_EQ(store_.skipped, 2u);
}

TEST_F(StateStoreTest, HistoryPages) {
  for (uint64_t v = 1; v <= 5; ++v) Write("alice", false, "h", v, std::to_string(v));
  const StateKey& key = *FindKey(store_, false, "alice", "h");
  HistoryPage p = History(key, 0, 2);
  ASSERT_EQ(p.versions.size(), 2u);
  EXPECT_EQ(p.versions[0].version, 1u);
  EXPECT_EQ(p.versions[1].version, 2u);
  EXPECT_EQ(p.versions[1].sequence, 2u);
  EXPECT_TRUE(p.more);
  p = History(key, 4, 2);
  ASSERT_EQ(p.versions.size(), 1u);
  EXPECT_EQ(p.versions[0].version, 5u);
  EXPECT_EQ(p.versions[0].sequence, 5u);
  EXPECT_FALSE(p.more);
  EXPECT_TRUE(History(key, 9, 2).versions.empty());
}

TEST_F(StateStoreTest, EachAgentHoldsTheKeysWhoseCurrentVersionItWrote) {
  Write("alice", false, "mine", 1, "\"abc\"");
  Write("alice", true, "shared", 1, "12345");
  EXPECT_EQ(HeldBytes(store_, "alice"), HeldBytesOf("mine", "\"abc\"") + HeldBytesOf("shared", "12345"));
  EXPECT_EQ(HeldBytes(store_, "bob"), 0u);
  // bob overwrites the shared key: it is his now, and no longer alice's.
  Write("bob", true, "shared", 2, "1");
  EXPECT_EQ(HeldBytes(store_, "alice"), HeldBytesOf("mine", "\"abc\""));
  EXPECT_EQ(HeldBytes(store_, "bob"), HeldBytesOf("shared", "1"));
  // A smaller value holds less; a skipped write changes nothing.
  Write("alice", false, "mine", 2, "1");
  Write("alice", false, "mine", 9, "\"a much longer value than before\"");
  EXPECT_EQ(HeldBytes(store_, "alice"), HeldBytesOf("mine", "1"));
  const auto held = store_.held_bytes;
  RecountHeldBytes(store_);
  EXPECT_EQ(store_.held_bytes, held);
  EXPECT_EQ(held.size(), 2u);
}

class MailboxTest : public ::testing::Test {
 protected:
  void Fold(const log::EventDraft& draft) { Apply(mail_, ++sequence_, log::Hash{}, Env(draft)); }
  void Send(const std::string& id, const std::string& from, const std::string& to) {
    Fold(tools::MessageSentEvent({from, "s"}, id, to, "subject " + id, "{}"));
  }
  std::vector<std::string> Ids(const MailPage& page) {
    std::vector<std::string> out;
    for (const auto* m : page.messages) out.push_back(m->message_id);
    return out;
  }
  Mailboxes mail_;
  uint64_t sequence_ = 0;
};

TEST_F(MailboxTest, UnreadFirstThenReadThenDeferredPaged) {
  for (const char* id : {"m1", "m2", "m3", "m4"}) Send(id, "alice", "bob");
  Send("x", "bob", "alice");
  Fold(tools::MessageReadEvent({"bob", "s"}, "m1"));
  Fold(tools::MessageDeferredEvent({"bob", "s"}, "m2", 1000));
  MailPage all = ListMail(mail_, "bob", 500, "", 10, false);
  EXPECT_EQ(Ids(all), (std::vector<std::string>{"m3", "m4", "m1", "m2"}));
  EXPECT_FALSE(all.next.has_value());
  MailPage first = ListMail(mail_, "bob", 500, "", 3, false);
  EXPECT_EQ(Ids(first), (std::vector<std::string>{"m3", "m4", "m1"}));
  ASSERT_TRUE(first.next.has_value());
  EXPECT_TRUE(IsMailCursor(*first.next));
  // The state and the message's id, never its log sequence (probe IH2).
  EXPECT_EQ(*first.next, "1:m1");
  EXPECT_EQ(Ids(ListMail(mail_, "bob", 500, *first.next, 3, false)), (std::vector<std::string>{"m2"}));
  // A cursor naming another agent's message, or none, lists nothing and says so.
  EXPECT_TRUE(ListMail(mail_, "bob", 500, "0:x", 3, false).unknown_cursor);
  EXPECT_TRUE(ListMail(mail_, "bob", 500, "1:nosuch", 3, false).unknown_cursor);
  EXPECT_TRUE(ListMail(mail_, "bob", 500, "1:nosuch", 3, false).messages.empty());
  EXPECT_FALSE(IsMailCursor("4:m1"));
  EXPECT_FALSE(IsMailCursor("1:"));
  EXPECT_FALSE(IsMailCursor("12:m1"));
  // After the deferral runs out the message is unread again.
  EXPECT_EQ(Ids(ListMail(mail_, "bob", 1000, "", 10, false)),
            (std::vector<std::string>{"m2", "m3", "m4", "m1"}));
  EXPECT_EQ(Ids(ListMail(mail_, "alice", 0, "", 10, false)), (std::vector<std::string>{"x"}));
}

// Pages read in place (no sort of the whole mailbox, probe EQ1) give exactly the order of
// sorting every message by (state, sent): walked page by page, for every page size, with
// and without completed ones, in a mailbox of every state mixed (seeded, reproducible).
TEST_F(MailboxTest, PagesFollowTheSortedOrderOfTheWholeMailbox) {
  uint32_t seed = 12345;
  const auto next_random = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) % 4; };
  for (int i = 0; i < 120; ++i) {
    const std::string id = "m" + std::to_string(i);
    Send(id, i % 7 == 0 ? "carol" : "alice", "bob");
    switch (next_random()) {
      case 1: Fold(tools::MessageReadEvent({"bob", "s"}, id)); break;
      case 2: Fold(tools::MessageDeferredEvent({"bob", "s"}, id, i % 2 == 0 ? 1000 : 10)); break;
      case 3: Fold(tools::MessageCompletedEvent({"bob", "s"}, id)); break;
      default: break;
    }
    if (i % 5 == 0) Send("x" + std::to_string(i), "bob", "alice");
  }
  const int64_t now = 500;  // half the deferrals have run out
  for (const bool completed : {false, true}) {
    std::vector<std::pair<std::pair<int, uint64_t>, std::string>> sorted;
    for (const auto& [id, m] : mail_.by_id) {
      if (m.to_agent_id != "bob") continue;
      const MailState state = StateAt(m, now);
      if (state == MailState::kCompleted && !completed) continue;
      sorted.push_back({{static_cast<int>(state), m.sent_sequence}, id});
    }
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::string> expected;
    for (const auto& row : sorted) expected.push_back(row.second);
    ASSERT_GT(expected.size(), 40u);
    for (const size_t limit : {1, 3, 7, 50, 500}) {
      std::vector<std::string> walked;
      std::string after;
      for (int pages = 0; pages < 200; ++pages) {
        MailPage page = ListMail(mail_, "bob", now, after, limit, completed);
        EXPECT_LE(page.messages.size(), limit);
        for (const auto& id : Ids(page)) walked.push_back(id);
        if (!page.next) break;
        after = *page.next;
      }
      EXPECT_EQ(walked, expected) << "limit " << limit << ", completed " << completed;
    }
  }
}

// A page passes over at most kMaxMailScanned messages of other states, then ends early with
// a `next` where it stopped; following `next` still walks every message once, in order.
TEST_F(MailboxTest, APageEndsEarlyAfterPassingOverTheScanBound) {
  const size_t read = kMaxMailScanned + 5;
  for (size_t i = 0; i < read + 3; ++i) {
    const std::string id = "m" + std::to_string(i);
    Send(id, "alice", "bob");
    if (i < read) Fold(tools::MessageReadEvent({"bob", "s"}, id));
  }
  MailPage first = ListMail(mail_, "bob", 0, "", 10, false);
  EXPECT_TRUE(first.messages.empty()) << "the unread come after the bound's worth of read ones";
  ASSERT_TRUE(first.next.has_value());
  MailPage second = ListMail(mail_, "bob", 0, *first.next, 10, false);
  EXPECT_EQ(Ids(second), (std::vector<std::string>{"m" + std::to_string(read), "m" + std::to_string(read + 1),
                                                   "m" + std::to_string(read + 2), "m0", "m1", "m2", "m3",
                                                   "m4", "m5", "m6"}));
  size_t walked = second.messages.size();
  for (std::optional<std::string> after = second.next; after;) {
    MailPage page = ListMail(mail_, "bob", 0, *after, 100, false);
    walked += page.messages.size();
    after = page.next;
  }
  EXPECT_EQ(walked, read + 3);
  // Completed ones are not passed over at all: completing the read ones makes the first
  // page hold the unread ones at once.
  for (size_t i = 0; i < read; ++i) Fold(tools::MessageCompletedEvent({"bob", "s"}, "m" + std::to_string(i)));
  EXPECT_EQ(ListMail(mail_, "bob", 0, "", 10, false).messages.size(), 3u);
  EXPECT_EQ(ListMail(mail_, "bob", 0, "", 10, true).messages.size(), 10u);
}

TEST_F(MailboxTest, CompletedIsHiddenUnlessAskedAndOnlyTheRecipientActs) {
  Send("m1", "alice", "bob");
  Send("m2", "alice", "bob");
  Fold(tools::MessageCompletedEvent({"alice", "s"}, "m1"));  // not alice's to complete
  EXPECT_EQ(mail_.skipped, 1u);
  EXPECT_FALSE(mail_.by_id.at("m1").completed);
  Fold(tools::MessageCompletedEvent({"bob", "s"}, "m1"));
  EXPECT_EQ(Ids(ListMail(mail_, "bob", 0, "", 10, false)), (std::vector<std::string>{"m2"}));
  MailPage with = ListMail(mail_, "bob", 0, "", 10, true);
  EXPECT_EQ(Ids(with), (std::vector<std::string>{"m2", "m1"}));
  EXPECT_EQ(StateAt(*with.messages[1], 0), MailState::kCompleted);
  Fold(tools::MessageSentEvent({"alice", "s"}, "m2", "carol", "dup", "{}"));
  EXPECT_EQ(mail_.by_id.at("m2").to_agent_id, "bob") << "an id is sent once";
}

}  // namespace
}  // namespace las::reducers
