// HandlesInCreation (tools/handles_in_creation.h): what is stored or on its way is not stored
// again, and an answer waiting for a handle runs once that handle is stored, or fails with
// the append.
#include "tools/handles_in_creation.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace las::tools {
namespace {

class HandlesInCreationTest : public ::testing::Test {
 protected:
  std::set<std::string, std::less<>> log_holds_;  // stands for the live handles projection
  HandlesInCreation handles_{[this](std::string_view id) { return log_holds_.count(id) != 0; }};
  std::vector<std::string> answered_;  // "name:ok" or "name:failed", in order

  std::function<void(bool)> Answer(std::string name) {
    return [this, name](bool ok) { answered_.push_back(name + (ok ? ":ok" : ":failed")); };
  }
};

TEST_F(HandlesInCreationTest, AHandleIsAbsentUntilOnePathBeginsItThenCreatingThenStored) {
  EXPECT_TRUE(handles_.Absent("h-1"));
  handles_.Begin("h-1");
  EXPECT_FALSE(handles_.Absent("h-1")) << "a second path must not store it again";
  EXPECT_TRUE(handles_.Creating("h-1"));
  log_holds_.insert("h-1");
  handles_.Settled(true);
  EXPECT_FALSE(handles_.Creating("h-1"));
  EXPECT_TRUE(handles_.Stored("h-1"));
  EXPECT_FALSE(handles_.Absent("h-1"));
}

TEST_F(HandlesInCreationTest, AWaiterRunsOnlyOnceEveryHandleItNamesIsStored) {
  handles_.Begin("h-1");
  handles_.Begin("h-2");
  handles_.AwaitStored({"h-1", "h-2", "h-stored-long-ago"}, Answer("both"));
  handles_.AwaitStored({"h-2"}, Answer("second"));
  EXPECT_TRUE(answered_.empty());

  log_holds_.insert("h-1");  // the first append is folded; the second is still on its way
  handles_.Settled(true);
  EXPECT_TRUE(answered_.empty()) << "h-2 is still being created";
  EXPECT_FALSE(handles_.Creating("h-1"));
  EXPECT_TRUE(handles_.Creating("h-2"));

  log_holds_.insert("h-2");
  handles_.Settled(true);
  EXPECT_EQ(answered_, (std::vector<std::string>{"both:ok", "second:ok"}));
}

TEST_F(HandlesInCreationTest, AWaiterForNothingInCreationRunsAtOnce) {
  handles_.AwaitStored({}, Answer("none"));
  handles_.AwaitStored({"h-unknown"}, Answer("not-in-creation"));
  EXPECT_EQ(answered_, (std::vector<std::string>{"none:ok", "not-in-creation:ok"}));
}

TEST_F(HandlesInCreationTest, AFailedAppendFailsEveryWaiter) {
  handles_.Begin("h-1");
  handles_.Begin("h-2");
  handles_.AwaitStored({"h-1"}, Answer("first"));
  handles_.AwaitStored({"h-2"}, Answer("second"));
  handles_.Settled(false);  // nothing was folded
  EXPECT_EQ(answered_, (std::vector<std::string>{"first:failed", "second:failed"}));
  EXPECT_TRUE(handles_.Creating("h-1")) << "the log refuses every later append anyway";
}

TEST_F(HandlesInCreationTest, AWaiterMayAwaitAgainFromItsAnswer) {
  handles_.Begin("h-1");
  handles_.AwaitStored({"h-1"}, [this](bool) {
    handles_.Begin("h-2");
    handles_.AwaitStored({"h-2"}, Answer("inner"));
  });
  log_holds_.insert("h-1");
  handles_.Settled(true);
  EXPECT_TRUE(answered_.empty()) << "h-2 is being created";
  log_holds_.insert("h-2");
  handles_.Settled(true);
  EXPECT_EQ(answered_, (std::vector<std::string>{"inner:ok"}));
}

}  // namespace
}  // namespace las::tools
