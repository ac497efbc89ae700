#include "transport/leftovers.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "transport/proc_stat.h"
#include "transport/spawn_id.h"

namespace las::transport {
namespace {

// A pid no process has: a child's, once it has exited and been reaped.
pid_t GonePid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// Starts argv with exactly `env` and stdin from `stdin_fd` (-1: inherited); returns once
// its environment reads `spawn_id` as its LAS_SPAWN_ID (exec done), or -1.
pid_t StartWith(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::string& spawn_id, int stdin_fd = -1) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (stdin_fd >= 0) ::dup2(stdin_fd, 0);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    args.push_back(nullptr);
    envp.push_back(nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (SpawnIdOf(pid) != spawn_id) {
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pid;
}

// Now, in the clock ticks process start times count (/proc/uptime is in their hundredths).
uint64_t TicksSinceBoot() {
  std::ifstream uptime("/proc/uptime");
  double seconds = 0;
  uptime >> seconds;
  return static_cast<uint64_t>(seconds * static_cast<double>(::sysconf(_SC_CLK_TCK)));
}

// Starts /bin/sleep 1000 with an environment that names no spawner.
pid_t Sleeper() { return StartWith({"/bin/sleep", "1000"}, {"A=1"}, ""); }

pid_t Leftover(const std::string& spawn_id) {
  return StartWith({"/bin/sleep", "1000"}, {"LAS_SPAWN_ID=" + spawn_id}, spawn_id);
}

// A child of this process, ended and reaped at the end of the test whatever its outcome.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  bool StillRunning() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
  // Whether it ends by SIGKILL within 30 s (reaped then).
  bool EndsKilled() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int status = 0;
    while (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid_ = -1;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }

 private:
  pid_t pid_;
};

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
  EXPECT_EQ(LivingProcessStartTime(::getpid()).has_value(), true);
  EXPECT_FALSE(LivingProcessStartTime(GonePid()));
}

// Probe KE1: a Las killed with SIGKILL left its children's setsid helpers running.
TEST(Leftovers, AProcessWhoseSpawnerIsGoneIsEnded) {
  Child leftover(Leftover(std::to_string(GonePid()) + ".1"));
  ASSERT_GT(leftover.pid(), 0);
  EXPECT_GE(EndLeftoversOfEndedSpawners(), 1u);
  EXPECT_TRUE(leftover.EndsKilled());
}

TEST(Leftovers, AProcessOneOfWhoseSpawnersRunsIsKept) {
  Child spawner(Sleeper());
  ASSERT_GT(spawner.pid(), 0);
  Child kept(Leftover(std::to_string(GonePid()) + ".1," + std::to_string(spawner.pid()) + ".2"));
  ASSERT_GT(kept.pid(), 0);
  (void)EndLeftoversOfEndedSpawners();
  EXPECT_TRUE(kept.StillRunning());
  EXPECT_TRUE(spawner.StillRunning());
}

// The pid a leftover names may belong to a later process by now: not its spawner.
TEST(Leftovers, ASpawnerPidUsedAgainByALaterProcessDoesNotKeepIt) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  // Started (forked) before the process whose pid it will name, told that pid on stdin.
  Child leftover(::fork());
  if (leftover.pid() == 0) {
    ::dup2(pipe_fds[0], 0);
    ::close(pipe_fds[1]);
    char* args[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                    const_cast<char*>("read p; export LAS_SPAWN_ID=\"$p.1\"; exec /bin/sleep 1000"),
                    nullptr};
    char* envp[] = {nullptr};
    ::execve(args[0], args, envp);
    ::_exit(127);
  }
  ::close(pipe_fds[0]);
  // Start times count clock ticks: a process started in the same tick could be the
  // spawner, and is taken for it. The later one starts a tick later.
  const std::optional<uint64_t> leftover_started = LivingProcessStartTime(leftover.pid());
  ASSERT_TRUE(leftover_started.has_value());
  while (TicksSinceBoot() <= *leftover_started) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Child later(Sleeper());
  ASSERT_GT(later.pid(), 0);
  const std::string id = std::to_string(later.pid()) + ".1";
  const std::string line = std::to_string(later.pid()) + "\n";
  ASSERT_EQ(::write(pipe_fds[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  ::close(pipe_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (SpawnIdOf(leftover.pid()) != id && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(SpawnIdOf(leftover.pid()), id);
  EXPECT_GE(EndLeftoversOfEndedSpawners(), 1u);
  EXPECT_TRUE(leftover.EndsKilled());
  EXPECT_TRUE(later.StillRunning()) << "it carries no LAS_SPAWN_ID";
}

// A Las started from a process a dead Las left (a shell a surface opened) ends neither
// that shell nor its siblings: they are of its own spawn.
TEST(Leftovers, ProcessesOfThisProcessesOwnSpawnAreKept) {
  const std::string own = std::to_string(GonePid()) + ".9";
  ASSERT_EQ(::setenv("LAS_SPAWN_ID", own.c_str(), 1), 0);
  Child sibling(Leftover(own + "," + std::to_string(GonePid()) + ".1"));
  if (sibling.pid() > 0) (void)EndLeftoversOfEndedSpawners();
  ::unsetenv("LAS_SPAWN_ID");
  ASSERT_GT(sibling.pid(), 0);
  EXPECT_TRUE(sibling.StillRunning());
}

}  // namespace
}  // namespace las::transport
