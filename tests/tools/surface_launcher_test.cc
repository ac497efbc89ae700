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
#include <optional>

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

// Launches `surface` of `release` on `io` and runs the loop until its verdict is in.
std::optional<SurfaceLaunch> LaunchAndWait(boost::asio::io_context& io,
                                           testing::SignedRelease& release,
                                           const std::string& surface, const LaunchOptions& options) {
  std::optional<SurfaceLaunch> launched;
  LaunchSurface(io, *release.manifest().FindSurface(surface), options,
                [&](SurfaceLaunch launch) { launched = std::move(launch); });
  while (!launched && io.run_one_for(std::chrono::seconds(30)) > 0) {
  }
  return launched;
}

TEST(SurfaceLauncherTest, ACommandReplacedBetweenTheCheckAndTheSpawnRunsTheCheckedBytes) {
  testing::TempDir tmp;
  testing::SignedRelease release(tmp.path().string());
  // The signed command is the script itself ("#!/usr/bin/python3"), inside the workspace.
  const std::string command = release.CopyIntoWorkspace(
      std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py", "child");
  release.AddSurface("lem", {command});
  ASSERT_FALSE(HasFailure());
  const std::string impostor = release.workspace() + "/impostor";
  {
    std::ofstream out(impostor);
    out << "#!/bin/sh\nexit 3\n";
  }
  std::filesystem::permissions(impostor, std::filesystem::perms::owner_all);

  SwapBeforeSpawn spawner(command, impostor);
  LaunchOptions options;
  options.policy.workspace = release.workspace();
  options.start_timeout_ms = 20'000;
  options.spawner = &spawner;
  boost::asio::io_context io;
  std::optional<SurfaceLaunch> launched = LaunchAndWait(io, release, "lem", options);
  ASSERT_TRUE(launched.has_value());
  EXPECT_TRUE(spawner.swapped()) << "the command at its path was replaced before the spawn";
  EXPECT_TRUE(launched->ok) << launched->reason << ": " << launched->detail
                            << " (the replacement, run by path, exits 3 at once)";
  EXPECT_FALSE(launched->live_tools.empty()) << "the checked child listed its tools";
  if (launched->client) {
    bool ended = false;
    launched->client->Shutdown([&] { ended = true; });
    while (!ended && io.run_one_for(std::chrono::seconds(30)) > 0) {
    }
  }
}

// A spawn that fails (here: as for want of descriptors) says why in the detail, its own
// words, not only "spawn_failed" (probe BF2).
class OutOfDescriptors final : public transport::ProcessSpawner {
 public:
  Result<std::unique_ptr<transport::ChildProcess>> Spawn(const transport::SpawnOptions&) override {
    return IoError("pipe: Too many open files");
  }
};

TEST(SurfaceLauncherTest, ASpawnThatFailsSaysWhy) {
  testing::TempDir tmp;
  testing::SignedRelease release(tmp.path().string());
  const std::string command = release.CopyIntoWorkspace(
      std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py", "child");
  release.AddSurface("lem", {command});
  ASSERT_FALSE(HasFailure());
  OutOfDescriptors spawner;
  LaunchOptions options;
  options.policy.workspace = release.workspace();
  options.spawner = &spawner;
  boost::asio::io_context io;
  std::optional<SurfaceLaunch> launched = LaunchAndWait(io, release, "lem", options);
  ASSERT_TRUE(launched.has_value());
  EXPECT_FALSE(launched->ok);
  EXPECT_EQ(launched->reason, "start-failed");
  EXPECT_EQ(launched->detail,
            "the child did not start or initialize (spawn_failed: pipe: Too many open files)");
}

}  // namespace
}  // namespace las::tools
