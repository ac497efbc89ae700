// Crash safety and cross-process reading with real processes: a writer killed with SIGKILL
// at random moments loses nothing it acknowledged; a reader in another process follows a
// live writer.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <atomic>
#include <random>
#include <sstream>
#include <thread>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

using testing::ChildProcess;

uint64_t LastAcked(const std::vector<std::string>& lines, uint64_t so_far) {
  for (const auto& line : lines) {
    std::istringstream in(line);
    std::string word;
    uint64_t first = 0;
    uint64_t last = 0;
    if (in >> word >> first >> last && word == "acked") so_far = std::max(so_far, last);
  }
  return so_far;
}

TEST(CrashTest, SigkillAtRandomMomentsLosesNoAcknowledgedAppend) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(0, 40);
  SCOPED_TRACE("seed " + std::to_string(seed));

  uint64_t acked = 0;
  int kills_with_progress = 0;
  for (int round = 0; round < 24; ++round) {
    ChildProcess writer({LAS_APPENDER_PATH, "loop", dir});
    // Wait for the first acknowledgement so that the kill lands mid-work, not at start-up.
    auto first = writer.ReadLine();
    ASSERT_TRUE(first.has_value()) << "round " << round << ": the writer never acknowledged";
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    writer.Kill(SIGKILL);
    int status = writer.Wait();
    ASSERT_TRUE(WIFSIGNALED(status)) << "round " << round;
    std::vector<std::string> lines = writer.DrainLines();
    lines.insert(lines.begin(), *first);
    const uint64_t before = acked;
    acked = LastAcked(lines, acked);
    if (acked > before) ++kills_with_progress;

    auto log = EventLog::Open(dir);
    ASSERT_TRUE(log.ok()) << "round " << round << ": " << log.status().ToString();
    ASSERT_TRUE((*log)->Verify().ok()) << "round " << round;
    ASSERT_GE((*log)->head().sequence, acked)
        << "round " << round << ": an acknowledged append was lost";
  }
  EXPECT_EQ(kills_with_progress, 24);
}

// After a crash the newest acknowledged events live only in the WAL. RocksDB's default
// recovery stops at damage there and drops every later record, acknowledged or not; the
// next append would then extend the shortened chain, and the log would verify.
TEST(CrashTest, DamageInTheWalAfterACrashRefusesTheOpen) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  {
    ChildProcess writer({LAS_APPENDER_PATH, "loop", dir});
    uint64_t acked = 0;
    while (acked < 200) {
      auto line = writer.ReadLine();
      ASSERT_TRUE(line.has_value());
      acked = LastAcked({*line}, acked);
    }
    writer.Kill(SIGKILL);
    writer.Wait();
  }
  std::filesystem::path wal;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".log" && std::filesystem::file_size(entry.path()) > 0) wal = entry.path();
  }
  ASSERT_FALSE(wal.empty()) << "no WAL holds the acknowledged events";
  std::fstream f(wal, std::ios::in | std::ios::out | std::ios::binary);
  const auto middle = static_cast<std::streamoff>(std::filesystem::file_size(wal) / 2);
  f.seekg(middle);
  char c = 0;
  f.get(c);
  f.seekp(middle);
  f.put(static_cast<char>(c ^ 0xFF));
  f.close();

  auto log = EventLog::Open(dir);
  ASSERT_FALSE(log.ok()) << "the writer opened a damaged log at head " << (*log)->head().sequence;
  EXPECT_EQ(log.status().code(), Code::kCorruption) << log.status().ToString();
}

// Writers creating one new log at the same instant: one makes it, the others find it
// locked; none may take the half-made log for "not a Las log" or "damaged".
TEST(CreationRaceTest, WritersCreatingOneLogAtOnceGetTheLogOrLocked) {
  for (int trial = 0; trial < 8; ++trial) {
    testing::TempDir tmp;
    const std::string dir = tmp.Sub("log");
    std::vector<std::unique_ptr<ChildProcess>> writers;
    for (int i = 0; i < 3; ++i) {
      writers.push_back(std::make_unique<ChildProcess>(std::vector<std::string>{LAS_APPENDER_PATH, "serve", dir}));
    }
    ChildProcess* holder = nullptr;
    for (auto& writer : writers) {
      auto line = writer->ReadLine();
      if (line && line->starts_with("ready")) {
        EXPECT_EQ(holder, nullptr) << "two writers hold one log";
        holder = writer.get();
        continue;
      }
      const int status = writer->Wait();
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 7) << "trial " << trial << ": locked, not not-a-log (5) or damaged (3)";
    }
    ASSERT_NE(holder, nullptr);
    holder->CloseStdin();
    EXPECT_EQ(holder->Wait(), 0);
  }
}

TEST(FollowerTest, AReaderInAnotherProcessSeesAppendsMadeAfterItOpened) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ChildProcess writer({LAS_APPENDER_PATH, "serve", dir});
  ASSERT_EQ(writer.ReadLine(), "ready 0");
  writer.WriteLine("3");
  ASSERT_EQ(writer.ReadLine(), "head 3");

  auto reader = LogReader::Open(dir);  // the writer holds the lock; this must not need it
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->head()->sequence, 3u);

  writer.WriteLine("5");
  ASSERT_EQ(writer.ReadLine(), "head 8");
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_EQ((*reader)->head()->sequence, 8u);
  EXPECT_TRUE((*reader)->Verify().ok());

  writer.WriteLine("1");  // the writer was never blocked by the reader
  ASSERT_EQ(writer.ReadLine(), "head 9");
  writer.CloseStdin();
  EXPECT_EQ(writer.Wait(), 0);
}

// Short-lived writers (one `las grant` each) flush, switch MANIFEST and delete the old WAL
// as they open and close. A reader that opened or caught up across that once saw a view
// without the flushed events and reported tampering (~2% of reads before the fix).
TEST(FollowerTest, ReadersSeeNoTornViewWhileShortLivedWritersComeAndGo) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ChildProcess first({LAS_APPENDER_PATH, "session", dir});
  ASSERT_EQ(first.Wait(), 0);
  std::atomic<bool> writing{true};
  std::thread writers([&] {
    for (int i = 0; i < 40; ++i) {
      ChildProcess writer({LAS_APPENDER_PATH, "session", dir});
      if (writer.Wait() != 0) ADD_FAILURE() << "writer " << i << " failed";
    }
    writing = false;
  });
  auto follower = LogReader::Open(dir);
  ASSERT_TRUE(follower.ok()) << follower.status().ToString();
  int reads = 0;
  while (writing) {
    auto reader = LogReader::Open(dir);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Status fresh = (*reader)->Verify();
    EXPECT_TRUE(fresh.ok()) << "read " << reads << ", opened: " << fresh.ToString();
    Status caught_up = (*follower)->CatchUp();
    if (caught_up.ok()) caught_up = (*follower)->Verify();
    EXPECT_TRUE(caught_up.ok()) << "read " << reads << ", caught up: " << caught_up.ToString();
    ++reads;
  }
  writers.join();
  EXPECT_GT(reads, 20);
}

TEST(FollowerTest, ASecondWriterProcessIsLockedOut) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  ChildProcess writer({LAS_APPENDER_PATH, "serve", dir});
  ASSERT_EQ(writer.ReadLine(), "ready 0");
  auto files = [&dir] {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto before = files();
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto second = EventLog::Open(dir);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kLocked) << second.status().ToString();
  }
  EXPECT_EQ(files(), before) << "a refused open wrote into the log directory (RocksDB's LOG.old.*)";
}

}  // namespace
}  // namespace las::log
