// PacedLines counts the whole lines it keeps while the answers are congested, so that a
// daemon's shared input budget sees them (probe DG1: a 4 MiB line completed on a congested
// connection left the budget and sat in memory uncounted, on every connection at once).
#include "tools/paced_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace las::tools {
namespace {

// An output whose congestion the test sets; a paused reader resumes on Release().
class HeldOutput final : public LineOutput {
 public:
  void Write(std::string) override {}
  void WhenDrained(std::function<void()> done) override { done(); }
  bool Congested() const override { return congested; }
  void ReadWhenAllowed(std::function<void()> read) override { resume = std::move(read); }
  void Release() {
    congested = false;
    auto read = std::move(resume);
    read();
  }
  void Later(std::function<void()> next) override { later.push_back(std::move(next)); }
  bool congested = false;
  std::function<void()> resume;
  std::vector<std::function<void()>> later;
};

TEST(PacedLinesTest, LinesKeptWhileCongestedCountAsHeldUntilHandedOver) {
  std::vector<std::string> delivered;
  PacedLines lines(1 << 20, [&](const transport::LineEvent& event) {
    delivered.emplace_back(event.bytes);
  });
  HeldOutput answers;
  int reads = 0;
  const std::string big(100'000, 'x');
  lines.Feed(big.substr(0, 60'000), &answers, [&] { ++reads; });
  EXPECT_EQ(lines.held_bytes(), 60'000u);  // a partial line
  answers.congested = true;
  lines.Feed(big.substr(60'000) + "\n{}\n", &answers, [&] { ++reads; });
  EXPECT_TRUE(delivered.empty());
  EXPECT_EQ(reads, 1) << "no read while lines wait";
  EXPECT_EQ(lines.buffered_bytes(), 0u);
  EXPECT_EQ(lines.held_bytes(), big.size() + 2) << "both whole lines are held";
  answers.Release();
  EXPECT_EQ(delivered, (std::vector<std::string>{big, "{}"}));
  EXPECT_EQ(lines.held_bytes(), 0u);
  EXPECT_EQ(reads, 2);
}

// One read's lines go at most kLinesPerTurn at a time; the rest waits for Later, so one
// peer's flood of small requests takes turns with the other connections (probe DG3).
TEST(PacedLinesTest, AReadHandsOverAtMostATurnsLinesBeforeYielding) {
  std::vector<std::string> delivered;
  PacedLines lines(1 << 20, [&](const transport::LineEvent& event) {
    delivered.emplace_back(event.bytes);
  });
  HeldOutput answers;
  int reads = 0;
  std::string data;
  for (size_t i = 0; i < 2 * kLinesPerTurn + 10; ++i) data += std::to_string(i) + "\n";
  lines.Feed(data, &answers, [&] { ++reads; });
  EXPECT_EQ(delivered.size(), kLinesPerTurn);
  EXPECT_EQ(reads, 0) << "no read while lines wait";
  for (size_t turn = 2; turn <= 3; ++turn) {
    ASSERT_EQ(answers.later.size(), 1u);
    auto next = std::move(answers.later.front());
    answers.later.clear();
    next();
    EXPECT_EQ(delivered.size(), std::min(turn * kLinesPerTurn, 2 * kLinesPerTurn + 10));
  }
  EXPECT_TRUE(answers.later.empty());
  EXPECT_EQ(reads, 1) << "the next read once every line was handed over";
  EXPECT_EQ(delivered.back(), std::to_string(2 * kLinesPerTurn + 9)) << "in order";
  EXPECT_EQ(lines.held_bytes(), 0u);
}

}  // namespace
}  // namespace las::tools
