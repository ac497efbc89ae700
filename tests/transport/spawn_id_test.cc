#include "transport/spawn_id.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "transport/proc_stat.h"

namespace las::transport {
namespace {

TEST(SpawnId, PartsAreReadOutermostFirstAndMalformedOnesSkipped) {
  const auto parts = SpawnIdParts("12.3,x.1,5.z,,0.4,-6.1,34.5");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].spawner, 12);
  EXPECT_EQ(parts[0].serial, 3u);
  EXPECT_EQ(parts[1].spawner, 34);
  EXPECT_EQ(parts[1].serial, 5u);
  EXPECT_TRUE(SpawnIdParts("").empty());
  EXPECT_TRUE(SpawnIdParts("forged").empty());
}

TEST(ProcStat, FieldsAreCountedPastTheLastParenthesis) {
  const std::string stat = "42 (a) b) S 7 42 42 0 -1 4194560 100\n";
  EXPECT_EQ(ProcStatNumber(stat, 4), 7u);
  EXPECT_EQ(ProcStatNumber(stat, 9), 4194560u);
  EXPECT_EQ(ProcStatNumber(stat, 10), 100u) << "the line's end";
  EXPECT_FALSE(ProcStatNumber(stat, 3)) << "STATE is no number";
  EXPECT_FALSE(ProcStatNumber(stat, 11)) << "past the end";
  EXPECT_FALSE(ProcStatNumber(stat, 2));
  EXPECT_FALSE(ProcStatNumber("42 x S 1", 4)) << "no command name";
  EXPECT_TRUE(ReadProcStat(::getpid()).has_value());
}

}  // namespace
}  // namespace las::transport
