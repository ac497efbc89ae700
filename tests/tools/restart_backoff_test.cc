#include "tools/restart_backoff.h"

#include <gtest/gtest.h>

namespace las::tools {
namespace {

TEST(RestartBackoff, DoublesWhileTheChildKeepsStoppingSoonUpToTheCeiling) {
  RestartBackoff backoff(100, 1'000);
  EXPECT_EQ(backoff.AfterStop(5), 100);
  EXPECT_EQ(backoff.AfterStop(5), 200);
  EXPECT_EQ(backoff.AfterFailedStart(), 400);
  EXPECT_EQ(backoff.AfterFailedStart(), 800);
  EXPECT_EQ(backoff.AfterStop(999), 1'000);
  EXPECT_EQ(backoff.AfterFailedStart(), 1'000);
}

TEST(RestartBackoff, AChildThatRanPastTheCeilingStartsOverFromTheFirstWait) {
  RestartBackoff backoff(100, 1'000);
  EXPECT_EQ(backoff.AfterStop(0), 100);
  EXPECT_EQ(backoff.AfterStop(0), 200);
  EXPECT_EQ(backoff.AfterStop(1'000), 100);
  EXPECT_EQ(backoff.AfterStop(10), 200);
}

TEST(RestartBackoff, AFailedStartBeforeAnyStopWaitsTheFirstDelay) {
  RestartBackoff backoff(50, 60'000);
  EXPECT_EQ(backoff.AfterFailedStart(), 50);
  EXPECT_EQ(backoff.AfterFailedStart(), 100);
}

TEST(RestartBackoff, ZeroMeansNever) {
  RestartBackoff backoff(0, 60'000);
  EXPECT_EQ(backoff.AfterStop(0), RestartBackoff::kNever);
  EXPECT_EQ(backoff.AfterFailedStart(), RestartBackoff::kNever);
}

TEST(RestartBackoff, ACeilingBelowTheFirstWaitIsTheFirstWait) {
  RestartBackoff backoff(500, 100);
  EXPECT_EQ(backoff.AfterStop(0), 500);
  EXPECT_EQ(backoff.AfterStop(0), 500);
}

}  // namespace
}  // namespace las::tools
