// PacedLines counts the whole lines it keeps while the answers are congested, so that a
// daemon's shared input budget sees them (probe DG1: a 4 MiB line completed on a congested
// connection left the budget and sat in memory uncounted, on every connection at once).
#include "tools/paced_lines.h"

#include <gtest/gtest.h>

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
  bool congested = false;
  std::function<void()> resume;
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

}  // namespace
}  // namespace las::tools
