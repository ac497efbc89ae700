// Large arguments through the real `las serve` (ServerCore's validation worker thread,
// GatewayOptions::offload_validation_bytes at its default 64 KiB), driven by the official
// MCP SDK client: a large argument is checked off the loop and the call is answered and
// logged as any other; one its schema refuses gets the refusal and its detail.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/e2e_fixture.h"
#include "tests/e2e/signed_release.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using nlohmann::json;

using testing::CallStep;
using testing::StepText;

constexpr size_t kLarge = 200 * 1024;  // over the default 64 KiB threshold, under 1 MiB
constexpr const char* kPadRefused =
    "the arguments do not match the input schema: \"/pad\" fails additionalProperties";

class OffloadValidationE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::SdkUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    release_ = std::make_unique<testing::SignedRelease>(tmp_.path().string());
    testing::AddStandIns(*release_, {"echo"});
    testing::AddTestChild(*release_, "kid");
    ASSERT_FALSE(HasFailure());
    release_->Sign(1);
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::SignedRelease> release_;
};

TEST_F(OffloadValidationE2eTest, ALargeArgumentIsCheckedOffTheLoopAndTheCallAnswered) {
  auto run = testing::RunServe(
      tmp_.Sub("log"), release_->registry_path(), testing::EnvObject(release_->Environment()),
      {CallStep("kid__echo", {{"text", "large"}, {"pad", std::string(kLarge, 'x')}}),
       CallStep("echo__echo", {{"message", "hi"}, {"pad", std::string(kLarge, 'y')}}),
       CallStep("kid__echo", {{"text", "small"}})});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.steps.size(), 3u);
  EXPECT_EQ(StepText(run.steps[0]), "large") << run.steps[0].dump();
  EXPECT_FALSE(run.steps[1]["ok"]);
  EXPECT_EQ(run.steps[1]["error"]["code"], -32602) << run.steps[1].dump();
  EXPECT_EQ(run.steps[1]["error"]["data"]["detail"], kPadRefused);
  EXPECT_EQ(StepText(run.steps[2]), "small");

  auto requested = testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallRequested"});
  ASSERT_EQ(requested.size(), 2u);
  EXPECT_GT(requested[0]["payload"]["arguments_size"].get<uint64_t>(), kLarge);
  auto completed = testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallCompleted"});
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0]["payload"]["outcome"], "Ok");
  auto denied = testing::ReplayEvents(tmp_.Sub("log"), {"--kind", "ToolCallDenied"});
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0]["payload"]["reason"], "arguments-schema-violation");
}

}  // namespace
}  // namespace las
