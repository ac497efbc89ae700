// Flow control against the real `las serve` over real pipes (tools/line_write_queue.h): a
// client that keeps sending requests but does not read its answers stops being read once
// kPauseReadingAboveBytes of answers are unwritten (checked before each line,
// tools/paced_lines.h) — its writes block on a full pipe instead of Las buffering without
// end — and when it reads again every request is answered, in order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/e2e/e2e_fixture.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"
#include "tools/line_write_queue.h"

namespace las {
namespace {

using nlohmann::json;

TEST(BackpressureTest, AClientThatDoesNotReadIsNotReadAndLosesNothing) {
  testing::TempDir tmp;
  testing::ChildProcess las({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("log")});
  las.WriteLine(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"slow"}})");
  auto hello = las.ReadLine();
  ASSERT_TRUE(hello.has_value());
  las.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  auto listing = las.ReadLine();
  ASSERT_TRUE(listing.has_value());
  // tools/list requests whose answers are twice the pause mark, then many more pings than
  // Las takes in one read (64 KiB) plus its stdin pipe (64 KiB) can hold: ~3,000 lines.
  const int lists =
      static_cast<int>(2 * tools::kPauseReadingAboveBytes / (listing->size() + 1));
  const int requests = lists + 6000;

  std::atomic<int> sent{0};
  std::thread writer([&] {
    try {
      for (int i = 0; i < requests; ++i) {
        las.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 2) +
                      (i < lists ? R"(,"method":"tools/list"})" : R"(,"method":"ping"})"));
        sent.store(i + 1);
      }
    } catch (const std::exception&) {
      // Las went away: the reads below fail the test.
    }
  });
  EXPECT_LT(testing::AwaitGoalOrStall(sent, requests), requests)
      << "Las kept reading a client that reads nothing";

  // Now read: the writer gets through, and every request is answered, in order.
  for (int id = 2; id < requests + 2; ++id) {
    auto line = las.ReadLine(std::chrono::seconds(30));
    ASSERT_TRUE(line.has_value()) << "no answer for request " << id;
    json answer = json::parse(*line, nullptr, false);
    ASSERT_EQ(answer.value("id", -1), id);
    ASSERT_TRUE(answer.contains("result"));
  }
  writer.join();
  las.CloseStdin();
  EXPECT_EQ(las.Wait(), 0);
}

}  // namespace
}  // namespace las
