// Flow control against the real `las serve` over real pipes (tools/line_write_queue.h): a
// client that keeps sending requests but does not read its answers stops being read once
// kPauseReadingAboveBytes of answers are unwritten — its writes block on a full pipe instead
// of Las buffering without end — and when it reads again every request is answered, in order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

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
  // Enough tools/list requests that their answers are several times the pause mark, and
  // more than Las's stdin pipe (64 KiB, ~1,100 of these lines) can hold besides.
  const size_t per_answer = listing->size() + 1;
  const int requests =
      static_cast<int>(3 * tools::kPauseReadingAboveBytes / per_answer) + 2000;

  std::atomic<int> sent{0};
  std::thread writer([&] {
    for (int i = 0; i < requests; ++i) {
      las.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 2) +
                    R"(,"method":"tools/list"})");
      sent.store(i + 1);
    }
  });
  // Wait until the writer makes no progress for half a second (or finishes).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int last = -1;
  auto still_since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline && sent.load() < requests) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (sent.load() != last) {
      last = sent.load();
      still_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - still_since > std::chrono::milliseconds(500)) {
      break;
    }
  }
  EXPECT_LT(sent.load(), requests) << "Las kept reading a client that reads nothing";
  const size_t held = static_cast<size_t>(sent.load()) * per_answer;
  EXPECT_LT(held, 4 * tools::kPauseReadingAboveBytes)
      << "requests read before Las stopped reading, in answer bytes";

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
