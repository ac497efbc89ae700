// tools/refusal_tally.h: a refusal is told at the 1st, 2nd, 4th, 8th... of its kind.
#include "tools/refusal_tally.h"

#include <gtest/gtest.h>

#include <vector>

namespace las::tools {
namespace {

TEST(RefusalTally, TellsThePowersOfTwoAndCountsEveryOne) {
  RefusalTally tally;
  std::vector<uint64_t> told;
  for (int i = 0; i < 200; ++i) {
    if (tally.Count()) told.push_back(tally.count());
  }
  EXPECT_EQ(told, (std::vector<uint64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(tally.count(), 200u);
}

}  // namespace
}  // namespace las::tools
