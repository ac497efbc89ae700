// PendingBytes: what waits between the two sides of the daemon bridge's byte copy.
#include "tools/pending_bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace las::tools {
namespace {

TEST(PendingBytesTest, PassesBytesInOrderAndSaysWhenFullOrEmpty) {
  PendingBytes pending;
  EXPECT_TRUE(pending.empty());
  pending.Add("hello ", 6);
  pending.Add("world", 5);
  EXPECT_EQ(pending.view(), "hello world");
  pending.Consume(6);
  EXPECT_EQ(pending.view(), "world");
  pending.Clear();
  EXPECT_TRUE(pending.empty());
  const std::string block(PendingBytes::kHighWater, 'x');
  pending.Add(block.data(), block.size());
  EXPECT_TRUE(pending.full());
  pending.Consume(1);
  EXPECT_FALSE(pending.full());
}

// A reader a little slower than the writer: the buffer never drains completely, yet it
// holds a bounded amount however many bytes pass (probe P5: it kept all 105 MB).
TEST(PendingBytesTest, MemoryStaysBoundedWhenTheBufferNeverDrains) {
  PendingBytes pending;
  std::string chunk(64 << 10, '\0');
  size_t added = 0;
  size_t taken = 0;
  char next_in = 0;
  char next_out = 0;
  while (added < (64u << 20)) {
    if (!pending.full()) {
      for (char& c : chunk) c = next_in++;
      pending.Add(chunk.data(), chunk.size());
      added += chunk.size();
    }
    for (int i = 0; i < 15 && !pending.empty(); ++i) {
      const std::string_view view = pending.view();
      const size_t n = std::min<size_t>(view.size(), 4096);
      for (size_t k = 0; k < n; ++k) ASSERT_EQ(view[k], next_out++) << "at byte " << taken + k;
      pending.Consume(n);
      taken += n;
    }
    ASSERT_FALSE(pending.empty());
    ASSERT_LE(pending.held(), 4 * PendingBytes::kHighWater);
  }
}

}  // namespace
}  // namespace las::tools
