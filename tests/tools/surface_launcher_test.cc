// The launcher executes the bytes that were checked (tools/surface_launcher.h,
// trust/launch_policy.h): a command replaced on disk between the check and the spawn
// changes nothing, because the child is executed from the checked descriptor (probe AK3).
#include "tools/surface_launcher.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include "tests/e2e/signed_release.h"
#include "tests/support/temp_dir.h"
#include "transport/child_process.h"
#include "transport/mcp_client.h"

namespace las::tools {
namespace {

// Replaces `path` with `replacement` (rename: a new inode at the path) the moment before
// the real spawn: what a race between the check and the exec would do.
class SwapBeforeSpawn final : public transport::ProcessSpawner {
 public:
  SwapBeforeSpawn(std::string path, std::string replacement)
      : path_(std::move(path)), replacement_(std::move(replacement)) {}
  Result<std::unique_ptr<transport::ChildProcess>> Spawn(
      const transport::SpawnOptions& options) override {
    swapped_ = std::rename(replacement_.c_str(), path_.c_str()) == 0;
    return transport::DefaultProcessSpawner().Spawn(options);
  }
  bool swapped() const { return swapped_; }

 private:
  std::string path_;
  std::string replacement_;
  bool swapped_ = false;
};

// A release with one surface, "lem": tests/transport/children/mcp_child.py copied into the
// workspace as its command (the script itself, "#!/usr/bin/python3").
class SurfaceLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    command_ = release_.CopyIntoWorkspace(
        std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py", "child");
    release_.AddSurface("lem", {command_});
  }

  // Launches "lem" with `spawner` on io_ and runs the loop until its verdict is in.
  std::optional<SurfaceLaunch> LaunchAndWait(transport::ProcessSpawner& spawner,
                                             int64_t start_timeout_ms = 30'000) {
    LaunchOptions options;
    options.policy.workspace = release_.workspace();
    options.start_timeout_ms = start_timeout_ms;
    options.spawner = &spawner;
    std::optional<SurfaceLaunch> launched;
    LaunchSurface(io_, *release_.manifest().FindSurface("lem"), options,
                  [&](SurfaceLaunch launch) { launched = std::move(launch); });
    while (!launched && io_.run_one_for(std::chrono::seconds(30)) > 0) {
    }
    return launched;
  }

  testing::TempDir tmp_;
  testing::SignedRelease release_{tmp_.path().string()};
  std::string command_;
  boost::asio::io_context io_;
};

TEST_F(SurfaceLauncherTest, ACommandReplacedBetweenTheCheckAndTheSpawnRunsTheCheckedBytes) {
  ASSERT_FALSE(HasFailure());
  const std::string impostor = release_.workspace() + "/impostor";
  {
    std::ofstream out(impostor);
    out << "#!/bin/sh\nexit 3\n";
  }
  std::filesystem::permissions(impostor, std::filesystem::perms::owner_all);

  SwapBeforeSpawn spawner(command_, impostor);
  std::optional<SurfaceLaunch> launched = LaunchAndWait(spawner, 20'000);
  ASSERT_TRUE(launched.has_value());
  EXPECT_TRUE(spawner.swapped()) << "the command at its path was replaced before the spawn";
  EXPECT_TRUE(launched->ok) << launched->reason << ": " << launched->detail
                            << " (the replacement, run by path, exits 3 at once)";
  EXPECT_FALSE(launched->live_tools.empty()) << "the checked child listed its tools";
  if (launched->client) {
    bool ended = false;
    launched->client->Shutdown([&] { ended = true; });
    while (!ended && io_.run_one_for(std::chrono::seconds(30)) > 0) {
    }
  }
}

// A spawn that fails (here: as for want of descriptors) says why in the detail, its own
// words, not only "spawn_failed" (probe BF2).
class OutOfDescriptors final : public transport::ProcessSpawner {
 public:
  Result<std::unique_ptr<transport::ChildProcess>> Spawn(const transport::SpawnOptions&) override {
    ++spawns;
    return IoError("pipe: Too many open files");
  }
  int spawns = 0;
};

TEST_F(SurfaceLauncherTest, ASpawnThatFailsSaysWhy) {
  ASSERT_FALSE(HasFailure());
  OutOfDescriptors spawner;
  std::optional<SurfaceLaunch> launched = LaunchAndWait(spawner);
  ASSERT_TRUE(launched.has_value());
  EXPECT_FALSE(launched->ok);
  EXPECT_EQ(launched->reason, "start-failed");
  EXPECT_EQ(launched->detail,
            "the child did not start or initialize (spawn_failed: pipe: Too many open files)");
  // Las's own words, which a server's note on stderr may carry (probe FH3).
  EXPECT_EQ(launched->spawn_failure, "pipe: Too many open files");
}

// The launch checks run where LaunchOptions::plan_off_loop puts them — here a held job,
// then another thread — and the launch goes on from their verdict back on the loop
// (probe EX1: hashing a huge file held every session of the server).
class OffLoopLaunchTest : public SurfaceLauncherTest {
 protected:
  // Starts the launch with its checks held in `held_`; nothing of it runs yet.
  std::function<void()> Start() {
    LaunchOptions options;
    options.policy.workspace = release_.workspace();
    options.spawner = &spawner_;
    options.plan_off_loop = [this](std::function<void()> job) { held_ = std::move(job); };
    return LaunchSurface(io_, *release_.manifest().FindSurface("lem"), options,
                         [this](SurfaceLaunch launch) {
                           ++reports_;
                           launched_ = std::move(launch);
                         });
  }
  void RunHeldJobOnAnotherThread() {
    ASSERT_TRUE(held_) << "the checks were handed over";
    std::thread worker(std::move(held_));
    worker.join();
  }
  // Runs what is ready; the loop may run again after (poll stops an idle io_context).
  void RunReady() {
    io_.poll();
    io_.restart();
  }
  void RunLoopUntil(const std::function<bool()>& done) {
    while (!done() && io_.run_one_for(std::chrono::seconds(30)) > 0) {
    }
  }

  OutOfDescriptors spawner_;
  std::function<void()> held_;
  std::optional<SurfaceLaunch> launched_;
  int reports_ = 0;
};

TEST_F(OffLoopLaunchTest, TheLaunchGoesOnFromTheChecksVerdictBackOnTheLoop) {
  ASSERT_FALSE(HasFailure());
  Start();
  RunReady();
  EXPECT_EQ(spawner_.spawns, 0) << "nothing spawned before the checks ran";
  EXPECT_FALSE(launched_.has_value());
  RunHeldJobOnAnotherThread();
  EXPECT_EQ(spawner_.spawns, 0) << "the spawn is the loop's";
  RunLoopUntil([&] { return launched_.has_value(); });
  ASSERT_TRUE(launched_.has_value());
  EXPECT_EQ(spawner_.spawns, 1);
  EXPECT_EQ(launched_->reason, "start-failed") << launched_->detail;
  EXPECT_NE(launched_->detail.find("Too many open files"), std::string::npos) << launched_->detail;
}

TEST_F(OffLoopLaunchTest, AnAbortWhileTheChecksRunEndsTheLaunchAtOnce) {
  ASSERT_FALSE(HasFailure());
  std::function<void()> abort = Start();
  abort();
  RunLoopUntil([&] { return launched_.has_value(); });
  ASSERT_TRUE(launched_.has_value());
  EXPECT_FALSE(launched_->ok);
  EXPECT_EQ(launched_->reason, "start-failed");
  EXPECT_EQ(launched_->detail, "the launch was aborted");
  RunHeldJobOnAnotherThread();  // its verdict comes back to a launch already reported
  RunReady();
  EXPECT_EQ(spawner_.spawns, 0) << "no child started for an aborted launch";
  EXPECT_EQ(reports_, 1);
}

// A command grown past kMaxLaunchedFileBytes is refused without being hashed: a swapped-in
// huge file cannot keep a launch reading for minutes.
TEST_F(SurfaceLauncherTest, ACommandOverTheLaunchBoundIsRefusedUnhashed) {
  ASSERT_FALSE(HasFailure());
  std::filesystem::resize_file(command_, trust::kMaxLaunchedFileBytes + 1);  // sparse
  OutOfDescriptors spawner;
  std::optional<SurfaceLaunch> launched = LaunchAndWait(spawner);
  ASSERT_TRUE(launched.has_value());
  EXPECT_FALSE(launched->ok);
  EXPECT_EQ(launched->reason, "file-too-large") << launched->detail;
  EXPECT_NE(launched->detail.find("may have at most 1073741824"), std::string::npos)
      << launched->detail;
  EXPECT_EQ(spawner.spawns, 0);
}

}  // namespace
}  // namespace las::tools
