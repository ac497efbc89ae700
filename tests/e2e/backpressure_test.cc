// Flow control against the real `las serve` over real pipes (tools/line_write_queue.h): a
// client that keeps sending requests but does not read its answers stops being read once
// kPauseReadingAboveBytes of answers are unwritten (checked before each line,
// tools/paced_lines.h) — its writes block on a full pipe instead of Las buffering without
// end — and when it reads again every request is answered, in order. The same holds when
// stdin is a regular file (read by a thread, tools/stdio_lines.h): Las stops reading the
// file instead of reading it all into memory. Answers decided but held until the log has
// what they read (Las's own tools) count as unwritten ones (tools/held_answers.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
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

// Probe CS1: a Las tool's answer waits until what it read is on disk, and meanwhile the
// flow control did not see it: one read of requests sent while a write of the log was
// queued had every answer decided and held at once (256 las__handle_read answers of
// ~400 KB: 101 MB more). Held answers count now, so a client that does not read grows Las
// by about the pause mark (8 MB), not by what it asks for; and when it reads, nothing is
// lost. The daemon's connections: DaemonTest.AnswersHeldForTheLogCountAsUnwrittenAnswers.
TEST(BackpressureTest, AnswersHeldForTheLogCountAsUnwrittenAnswers) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's runtime keeps freed memory: the peak measures it";
#endif
  testing::TempDir tmp;
  testing::ChildProcess las({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("log")});
  las.WriteLine(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"reader"}})");
  ASSERT_TRUE(las.ReadLine().has_value());
  const auto send = [&](const std::string& lines) { las.WriteLine(lines); };
  const auto read = [&] { return las.ReadLine(std::chrono::seconds(30)); };
  // Held at once: ~50 MB more; held by the mark: ~8 MB.
  const testing::HeldAnswerBurst burst = testing::PrepareHeldAnswerBurst(send, read, 6);
  ASSERT_FALSE(burst.ids.empty());
  const int64_t before = testing::PeakResidentBytes(las.pid());
  send(burst.lines);
  const int64_t peak = testing::AwaitGoalOrStall(
      [&] { return testing::PeakResidentBytes(las.pid()); }, std::numeric_limits<int64_t>::max());
  EXPECT_LT(peak - before, static_cast<int64_t>(3 * tools::kPauseReadingAboveBytes));
  EXPECT_TRUE(testing::AwaitAnswers(read, burst.ids));
  las.CloseStdin();
  EXPECT_EQ(las.Wait(), 0);
}

TEST(BackpressureTest, AFileOnStdinIsNotReadFasterThanItsAnswersAreTaken) {
  testing::TempDir tmp;
  // tools/list answers worth twice the pause mark (a listing is ~3 KiB with las's own
  // tools: sized from one), then pings: far more than a read (64 KiB) holds.
  std::string listing_size_probe;
  {
    testing::ChildProcess probe({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("probe")});
    probe.WriteLine(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"a"}})");
    ASSERT_TRUE(probe.ReadLine().has_value());
    probe.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    auto listing = probe.ReadLine();
    ASSERT_TRUE(listing.has_value());
    listing_size_probe = *listing;
    probe.CloseStdin();
    EXPECT_EQ(probe.Wait(), 0);
  }
  const int lists =
      static_cast<int>(2 * tools::kPauseReadingAboveBytes / (listing_size_probe.size() + 1));
  const int requests = lists + 20000;
  const std::string input = tmp.Sub("requests.jsonl");
  {
    std::ofstream file(input);
    file << R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"agentId":"file"}})" << "\n";
    for (int i = 0; i < requests; ++i) {
      file << R"({"jsonrpc":"2.0","id":)" << i + 1
           << (i < lists ? R"(,"method":"tools/list"})" : R"(,"method":"ping"})") << "\n";
    }
  }
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(input));

  testing::ChildProcess las({LAS_EXECUTABLE, "serve", "--log", tmp.Sub("log")}, input);
  // A stall counts only once reading has begun: start-up (opening the log, federating) may
  // take longer than the stall window, under a sanitizer especially.
  const auto started_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (las.StdinFileOffset() <= 0 && std::chrono::steady_clock::now() < started_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const int64_t read = testing::AwaitGoalOrStall([&] { return las.StdinFileOffset(); }, size);
  EXPECT_GT(read, 0);
  EXPECT_LT(read, size) << "Las read the whole file while its answers were not taken";

  // Taking the answers lets it read on: every request is answered, in order, then EOF.
  ASSERT_TRUE(las.ReadLine().has_value());  // initialize
  for (int id = 1; id <= requests; ++id) {
    auto line = las.ReadLine(std::chrono::seconds(30));
    ASSERT_TRUE(line.has_value()) << "no answer for request " << id;
    json answer = json::parse(*line, nullptr, false);
    ASSERT_EQ(answer.value("id", -1), id);
    ASSERT_TRUE(answer.contains("result"));
  }
  EXPECT_EQ(las.Wait(), 0);
}

}  // namespace
}  // namespace las
