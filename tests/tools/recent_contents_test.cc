// RecentContents (tools/recent_contents.h): found by id and sequence, least recently used
// evicted within the byte budget, a content over the budget never kept.
#include "tools/recent_contents.h"

#include <gtest/gtest.h>

#include "tools/coordination.h"

namespace las::tools {
namespace {

std::shared_ptr<const std::string> Bytes(size_t n, char c) {
  return std::make_shared<const std::string>(n, c);
}

TEST(RecentContents, FindsByIdAndSequence) {
  RecentContents recent(100);
  auto a = Bytes(10, 'a');
  recent.Keep("h-a", 7, a);
  EXPECT_EQ(recent.Find("h-a", 7), a);
  EXPECT_EQ(recent.Find("h-a", 8), nullptr);
  EXPECT_EQ(recent.Find("h-b", 7), nullptr);
  recent.Keep("h-a", 7, Bytes(10, 'x'));  // kept already: the first stays
  EXPECT_EQ(recent.Find("h-a", 7), a);
  EXPECT_EQ(recent.bytes(), 10u);
}

// Agents reading the largest handles at once, span by span in turn, keep theirs (probe
// DZ1: with room for one, each span evicted the other and re-read its event).
TEST(RecentContents, TheServersBudgetHoldsFourOfTheLargestHandles) {
  RecentContents recent(kRecentHandleBytes);
  for (uint64_t i = 1; i <= 4; ++i) {
    recent.Keep("h-" + std::to_string(i), i, Bytes(transport::kMaxChildLineBytes, 'x'));
  }
  for (uint64_t i = 1; i <= 4; ++i) {
    EXPECT_NE(recent.Find("h-" + std::to_string(i), i), nullptr) << i;
  }
}

TEST(RecentContents, EvictsTheLeastRecentlyUsedWithinTheBudget) {
  RecentContents recent(100);
  recent.Keep("h-1", 1, Bytes(40, '1'));
  recent.Keep("h-2", 2, Bytes(40, '2'));
  ASSERT_NE(recent.Find("h-1", 1), nullptr);  // now h-2 is the least recently used
  recent.Keep("h-3", 3, Bytes(40, '3'));
  EXPECT_EQ(recent.Find("h-2", 2), nullptr);
  EXPECT_NE(recent.Find("h-1", 1), nullptr);
  EXPECT_NE(recent.Find("h-3", 3), nullptr);
  EXPECT_EQ(recent.bytes(), 80u);
  EXPECT_EQ(recent.size(), 2u);
}

TEST(RecentContents, NeverKeepsMoreThanTheBudget) {
  RecentContents recent(100);
  recent.Keep("h-1", 1, Bytes(60, '1'));
  recent.Keep("huge", 2, Bytes(101, 'h'));
  EXPECT_EQ(recent.Find("huge", 2), nullptr);
  EXPECT_NE(recent.Find("h-1", 1), nullptr) << "a refused content evicts nothing";
  recent.Keep("h-2", 3, Bytes(100, '2'));
  EXPECT_EQ(recent.Find("h-1", 1), nullptr);
  EXPECT_EQ(recent.bytes(), 100u);
  EXPECT_EQ(recent.size(), 1u);
}

}  // namespace
}  // namespace las::tools
