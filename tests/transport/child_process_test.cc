#include "transport/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "transport/proc_stat.h"

namespace las::transport {
namespace {

const char* const kChildren = LAS_TRANSPORT_CHILDREN_DIR;

// Everything the child writes to stdout until EOF.
std::string ReadAll(UniqueFd fd) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// One line from stdout (blocking).
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line.push_back(c);
  return line;
}

bool ProcessGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

std::unique_ptr<ChildProcess> MustSpawn(const SpawnOptions& options) {
  RealProcessSpawner spawner;
  auto child = spawner.Spawn(options);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  return child.ok() ? std::move(child).value() : nullptr;
}

TEST(ChildProcess, ExactArgvAndEnvironmentNothingInherited) {
  ::setenv("LAS_TRANSPORT_TEST_LEAK", "1", 1);
  SpawnOptions o;
  o.argv = {"/usr/bin/env"};
  // The one entry the spawner adds (replacing any given) tells an ended child's leftovers.
  o.env = {"A=1", "LAS_SPAWN_ID=forged", "B=two words"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  const std::string printed = ReadAll(child->TakeStdout());
  const std::string spawn_id = "LAS_SPAWN_ID=" + std::to_string(::getpid()) + ".";
  EXPECT_TRUE(printed.starts_with("A=1\nB=two words\n" + spawn_id)) << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 3) << printed;
  int status = child->WaitForExit();
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);

  SpawnOptions args;
  args.argv = {"/usr/bin/printf", "%s|", "a b", "", "$HOME", "*"};
  child = MustSpawn(args);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStdout()), "a b||$HOME|*|");
}

TEST(ChildProcess, WorkingDirectory) {
  testing::TempDir dir;
  SpawnOptions o;
  o.argv = {"/bin/pwd"};
  o.cwd = dir.path().string();
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStdout()), std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(ChildProcess, StdinReachesTheChild) {
  SpawnOptions o;
  o.argv = {"/bin/cat"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  UniqueFd in = child->TakeStdin();
  ASSERT_EQ(::write(in.get(), "hello\n", 6), 6);
  in.Reset();  // EOF
  EXPECT_EQ(ReadAll(child->TakeStdout()), "hello\n");
}

TEST(ChildProcess, OwnProcessGroup) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "ps -o pgid= -p $$"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  std::string out = ReadAll(child->TakeStdout());
  EXPECT_EQ(std::stoi(out), child->pid());
  EXPECT_NE(::getpgrp(), child->pid());
}

// A child is exiting from the moment it begins to die until it is reaped; a child whose
// command name holds ") " is read by its last ')' (probe HU1).
TEST(ChildProcess, IsExitingFromItsDeathOn) {
  testing::TempDir tmp;
  const std::string odd = tmp.Sub("a) S 1 2 (b");
  std::filesystem::create_symlink("/bin/sleep", odd);
  SpawnOptions o;
  o.argv = {odd, "60"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_FALSE(child->IsExiting()) << "alive";
  ASSERT_EQ(::kill(child->pid(), SIGTERM), 0);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child->pid()), &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(child->IsExiting()) << "dead, not reaped";
  child->KillAndReap();
}

TEST(ChildProcess, ProcStatFlagsAreReadPastTheCommandName) {
  EXPECT_EQ(ProcStatFlags("42 (sleep) S 1 42 42 0 -1 4194560 100 0"), 4194560u);
  EXPECT_EQ(ProcStatFlags("42 (a) S 1 2 (b) R 1 42 42 0 -1 4194564 100 0"), 4194564u)
      << "by the last ')'";
  EXPECT_EQ(ProcStatFlags("42 (x) S 1 42 42 0 -1 4"), 4u);
  EXPECT_FALSE(ProcStatFlags("42 (x) S 1 42"));
  EXPECT_FALSE(ProcStatFlags("42 x S 1 42 42 0 -1 4"));
  EXPECT_FALSE(ProcStatFlags(""));
}

TEST(ChildProcess, OnlyKeptDescriptorsSurviveExec) {
  // Neither is close-on-exec in the parent; only `kept` is listed.
  int leaked = ::open("/dev/null", O_RDONLY);
  int kept = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked, 3);
  ASSERT_GE(kept, 3);
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "ls /proc/$$/fd"};
  o.env = {"PATH=/usr/bin:/bin"};
  o.keep_fds = {kept};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  std::string out = ReadAll(child->TakeStdout());
  std::vector<std::string> fds;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    fds.push_back(out.substr(pos, nl - pos));
    pos = nl + 1;
  }
  auto has = [&](int fd) {
    return std::find(fds.begin(), fds.end(), std::to_string(fd)) != fds.end();
  };
  EXPECT_TRUE(has(0) && has(1) && has(2)) << out;
  EXPECT_TRUE(has(kept)) << out;
  EXPECT_FALSE(has(leaked)) << out;
  ::close(leaked);
  ::close(kept);
}

TEST(ChildProcess, ExecutesAnOpenDescriptor) {
  testing::TempDir dir;
  // A copy that is then renamed away: only the descriptor still names these bytes.
  std::string path = dir.Sub("prog.py");
  {
    std::ofstream f(path);
    f << "#!/usr/bin/python3\nimport sys\nprint('via fd', sys.argv[1])\n";
  }
  ASSERT_EQ(::chmod(path.c_str(), 0700), 0);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  SpawnOptions o;
  o.argv = {"prog", "arg1"};
  o.exec_fd = fd;
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStdout()), "via fd arg1\n");
  ::close(fd);

  int bin = ::open("/usr/bin/echo", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(bin, 0);
  o.argv = {"echo", "binary"};
  o.exec_fd = bin;
  child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStdout()), "binary\n");
  ::close(bin);
}

// A binary run from its descriptor does not keep that descriptor open (probe AA4: every
// Python child held one on the interpreter); a `#!` script's must stay open (above).
TEST(ChildProcess, AnExecutedBinarysDescriptorIsNotInherited) {
  const int opened = ::open("/usr/bin/ls", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(opened, 0);
  const int bin = ::fcntl(opened, F_DUPFD_CLOEXEC, 57);  // a number ls would not open itself
  ::close(opened);
  ASSERT_GE(bin, 57);
  SpawnOptions o;
  o.argv = {"ls", "/proc/self/fd"};
  o.exec_fd = bin;
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  const std::string listed = ReadAll(child->TakeStdout());
  EXPECT_NE(listed.find("0\n1\n2\n"), std::string::npos) << listed;
  EXPECT_EQ(listed.find(std::to_string(bin) + "\n"), std::string::npos) << listed;
  ::close(bin);
}

TEST(ChildProcess, SpawnFailuresAreStatuses) {
  RealProcessSpawner spawner;
  SpawnOptions o;
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kInvalidArgument);  // empty argv
  o.argv = {"relative/prog"};
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kInvalidArgument);
  o.argv = {"/nonexistent/prog"};
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kNotFound);
  o.argv = {"/bin/true"};
  o.cwd = "/nonexistent/dir";
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kNotFound);
  testing::TempDir dir;
  std::string plain = dir.Sub("not_executable");
  std::ofstream(plain) << "data";
  o.argv = {plain};
  o.cwd.clear();
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kDenied);
  o.argv = {"/bin/true"};
  o.keep_fds = {1};
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kInvalidArgument);
  o.keep_fds = {987654};
  EXPECT_EQ(spawner.Spawn(o).status().code(), Code::kInvalidArgument);
}

TEST(ChildProcess, TerminateEndsTheWholeGroupWithoutZombies) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "sleep 1000 & echo $!; wait"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  UniqueFd out = child->TakeStdout();
  pid_t grandchild = std::stoi(ReadLine(out.get()));
  ASSERT_GT(grandchild, 0);
  ASSERT_EQ(::kill(grandchild, 0), 0);
  pid_t leader = child->pid();

  int status = child->Terminate(std::chrono::seconds(5));
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  // Reaped, not just dead: kill() on a zombie would still succeed.
  EXPECT_TRUE(ProcessGone(leader));
  EXPECT_TRUE(ProcessGone(grandchild));
  EXPECT_TRUE(child->reaped());
}

// A clock that moves one second each time it is read: the grace period is measured by
// it, not by real time.
class SteppingClock final : public MonotonicClock {
 public:
  int64_t NowNanos() const override { return 1'000'000'000LL * ++reads_; }
  mutable std::atomic<int64_t> reads_{0};
};

TEST(ChildProcess, SigkillAfterGraceByInjectedClock) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  SpawnOptions o;
  // Ignores SIGTERM (and so does its grandchild, which inherits the disposition).
  o.argv = {"/bin/sh", "-c", "trap '' TERM; sleep 1000 & echo $!; wait; wait"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  UniqueFd out = child->TakeStdout();
  pid_t grandchild = std::stoi(ReadLine(out.get()));
  SteppingClock clock;
  auto start = std::chrono::steady_clock::now();
  // 3 "seconds" of grace on the stepping clock pass within a few polls of real time.
  int status = child->Terminate(std::chrono::seconds(3), clock);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_GE(clock.reads_.load(), 3);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(ProcessGone(grandchild));
}

// A leader that leaves its process group (setpgid into another group of the session, here
// this test's own) gets no group signal: it is signalled by its pid too, or ending it waited
// forever for a leader that was never told to go (probe AW1).
TEST(ChildProcess, ALeaderThatLeftItsGroupIsStillEnded) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  for (const bool ignores_term : {false, true}) {
    SpawnOptions o;
    o.argv = {"/usr/bin/python3", "-c",
              std::string("import os, signal, time\n") +
                  (ignores_term ? "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" : "") +
                  "os.setpgid(0, os.getpgid(os.getppid()))\n"
                  "print('moved', flush=True)\n"
                  "time.sleep(1000)\n"};
    auto child = MustSpawn(o);
    ASSERT_TRUE(child);
    UniqueFd out = child->TakeStdout();
    ASSERT_EQ(ReadLine(out.get()), "moved");
    const pid_t leader = child->pid();
    ASSERT_EQ(::getpgid(leader), ::getpgrp()) << "it joined this process's group";
    // The grace ends at once on the stepping clock for the one that ignores SIGTERM.
    SteppingClock stepping;
    const MonotonicClock& clock = ignores_term ? stepping : SystemMonotonicClock();
    auto ended = std::async(std::launch::async, [&] {
      return child->Terminate(std::chrono::seconds(10), clock);
    });
    if (ended.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      ::kill(leader, SIGKILL);  // lets the stuck wait end, so the test can report
      ended.wait();
      FAIL() << "Terminate did not end a leader outside its group";
    }
    const int status = ended.get();
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), ignores_term ? SIGKILL : SIGTERM);
    EXPECT_TRUE(ProcessGone(leader));
  }
}

// An orphan killed at the end hands its own children to this subreaper after the list of
// children was read: they are found and ended too, however deep (probe AW2).
TEST(ChildProcess, KillingAdoptedOrphansEndsWhatTheyLeaveInTurn) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  SpawnOptions o;
  // The child starts a process in a session of its own, which starts one more, and exits.
  o.argv = {"/bin/sh", "-c",
            "setsid /bin/sh -c 'sleep 1000 & echo $$ $!; wait' & exit 0"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  UniqueFd out = child->TakeStdout();
  const std::string pids = ReadLine(out.get());
  const size_t space = pids.find(' ');
  ASSERT_NE(space, std::string::npos) << pids;
  const pid_t escapee = std::stoi(pids.substr(0, space));
  const pid_t its_child = std::stoi(pids.substr(space + 1));
  child->WaitForExit();
  EXPECT_FALSE(ProcessGone(escapee));
  EXPECT_FALSE(ProcessGone(its_child));

  EXPECT_GE(ReapAdoptedOrphans(/*kill_living=*/true), 2u);
  EXPECT_TRUE(ProcessGone(escapee));
  EXPECT_TRUE(ProcessGone(its_child)) << "re-parented here when the escapee was killed";
  ::kill(its_child, SIGKILL);  // if the check failed, leave nothing behind
}

// Blocks until `pid` has exited (not reaped), for at most 20 s; false if it had not.
bool AwaitExit(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return errno == ESRCH;
  pollfd exited{pidfd.get(), POLLIN, 0};
  return ::poll(&exited, 1, 20'000) == 1;
}

// Whether `done` held within 20 s, looking every millisecond (nothing tells of an exec or
// of a thread's end).
bool Eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    ::usleep(1000);
  }
  return true;
}

std::string ProcFile(pid_t pid, const std::string& name) {
  return ReadAll(UniqueFd(::open(("/proc/" + std::to_string(pid) + "/" + name).c_str(), O_RDONLY)));
}

// A child that starts `escapee` in a session of its own through a shell that exits at
// once (so this subreaper adopts it while the child lives on); `escapee`'s pid comes back
// once its command name is `comm` (its environment reads empty while setsid execs it).
std::unique_ptr<ChildProcess> SpawnWithEscapee(pid_t& escapee,
                                               const std::string& command = "/bin/sleep 1000",
                                               const std::string& comm = "sleep") {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c",
            "/bin/sh -c 'setsid " + command + " & echo $!'; echo adopted; exec /bin/sleep 1000"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  if (!child) return nullptr;
  UniqueFd out = child->TakeStdout();
  escapee = std::stoi(ReadLine(out.get()));
  EXPECT_EQ(ReadLine(out.get()), "adopted");
  EXPECT_TRUE(Eventually([&] { return ProcFile(escapee, "comm") == comm + "\n"; }));
  return child;
}

// What a child left outside its group ends with it, not at this process's exit (a restarted
// surface's forerunner left processes running until Las exited: probe AW3); what a child
// still running left is its own and stays.
TEST(ChildProcess, WhatAnEndedChildLeftIsEndedWhatALivingOneLeftStays) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  pid_t first_escapee = 0;
  pid_t second_escapee = 0;
  auto first = SpawnWithEscapee(first_escapee);
  auto second = SpawnWithEscapee(second_escapee);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 0u);
  EXPECT_FALSE(ProcessGone(first_escapee));

  first->KillAndReap();
  ASSERT_TRUE(AwaitExit(first_escapee)) << "the ended child's escapee still runs";
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  EXPECT_TRUE(ProcessGone(first_escapee));
  EXPECT_FALSE(ProcessGone(second_escapee)) << "the living child's escapee was ended";

  // Its leader ended by itself (reaped later, as McpClient does): the reaping ends it too.
  ASSERT_EQ(::kill(second->pid(), SIGKILL), 0);
  ASSERT_TRUE(AwaitExit(second->pid()));
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 0u) << "not reaped yet: still its own";
  EXPECT_FALSE(ProcessGone(second_escapee));
  second->WaitForExit();
  ASSERT_TRUE(AwaitExit(second_escapee));
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  ::kill(first_escapee, SIGKILL);  // if a check failed, leave nothing behind
  ::kill(second_escapee, SIGKILL);
}

// One whose main thread has ended (its /proc/PID/environ then has no memory to read)
// is told by another of its threads (probe BB1).
TEST(ChildProcess, WhatAnEndedChildLeftIsToldWhenItsMainThreadHasEnded) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  pid_t escapee = 0;
  auto child = SpawnWithEscapee(
      escapee,
      "/usr/bin/python3 -c \"import threading, time, ctypes; "
      "threading.Thread(target=time.sleep, args=(1000,)).start(); "
      "ctypes.CDLL(None).pthread_exit(None)\"",
      "python3");
  ASSERT_TRUE(child);
  ASSERT_TRUE(Eventually([&] {
    const std::string stat = ProcFile(escapee, "stat");
    const size_t close = stat.rfind(')');
    return close != std::string::npos && stat.substr(close + 2, 1) == "Z";
  })) << "its main thread ended";
  ASSERT_TRUE(ProcFile(escapee, "environ").empty());
  child->KillAndReap();
  ASSERT_TRUE(AwaitExit(escapee)) << "the ended child's escapee still runs";
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  ::kill(escapee, SIGKILL);  // if a check failed, leave nothing behind
}

// A Las that is itself a child passes on the id it was started with: what its own
// children leave is still known as its spawn's (probe BB2: a nested las replaced it).
TEST(ChildProcess, AnInheritedSpawnIdIsKeptBeforeThisProcesssOwn) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  ::setenv("LAS_SPAWN_ID", "999999.7", 1);
  SpawnOptions o;
  o.argv = {"/usr/bin/env"};
  auto printer = MustSpawn(o);
  ASSERT_TRUE(printer);
  EXPECT_EQ(ReadAll(printer->TakeStdout()).rfind("LAS_SPAWN_ID=999999.7," + std::to_string(::getpid()) + ".", 0), 0u);
  printer->WaitForExit();
  pid_t escapee = 0;
  auto child = SpawnWithEscapee(escapee);
  ::unsetenv("LAS_SPAWN_ID");
  ASSERT_TRUE(child);
  child->KillAndReap();
  ASSERT_TRUE(AwaitExit(escapee)) << "the ended child's escapee still runs";
  EXPECT_EQ(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  ::kill(escapee, SIGKILL);
}

TEST(ChildProcess, DestructorKillsAndReaps) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  pid_t pid;
  {
    SpawnOptions o;
    o.argv = {"/bin/sleep", "1000"};
    auto child = MustSpawn(o);
    ASSERT_TRUE(child);
    pid = child->pid();
    EXPECT_FALSE(child->HasExited());
  }
  EXPECT_TRUE(ProcessGone(pid));
}

TEST(ChildProcess, StderrDiscardedOrPiped) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo to-err >&2; echo to-out"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_FALSE(child->TakeStderr().valid());
  EXPECT_EQ(ReadAll(child->TakeStdout()), "to-out\n");
  o.stderr_mode = SpawnOptions::Stderr::kPipe;
  child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStderr()), "to-err\n");
}

TEST(ChildProcess, SignalsAreResetInTheChild) {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction old {};
  ::sigaction(SIGINT, &ign, &old);
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "grep SigIgn /proc/$$/status"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ::sigaction(SIGINT, &old, nullptr);
  ASSERT_TRUE(child);
  std::string out = ReadAll(child->TakeStdout());
  // SIGINT is bit 1 (value 2): an inherited ignore would show as ...2 in the mask.
  EXPECT_EQ(out.find("0000000000000002"), std::string::npos) << out;
  (void)kChildren;
}

// A daemon raises its own open-file limit for its many connections; its children keep the
// one they would have had (a child using select() breaks past 1024 descriptors).
TEST(ChildProcess, ChildrenKeepTheOpenFileLimitFromBeforeARaise) {
  rlimit original{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &original), 0);
  if (original.rlim_max < 512) GTEST_SKIP() << "the hard open-file limit is below 512";
  rlimit before = original;  // lowering the soft limit needs no privilege
  before.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  Result<rlim_t> raised = RaiseOpenFileSoftLimit(before.rlim_cur + 64);
  ASSERT_TRUE(raised.ok()) << raised.status().ToString();
  EXPECT_EQ(*raised, before.rlim_cur + 64);
  EXPECT_EQ(*RaiseOpenFileSoftLimit(before.rlim_cur + 128), before.rlim_cur + 128);  // raised again
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "ulimit -Sn"};
  o.env = {"PATH=/usr/bin:/bin"};
  auto child = MustSpawn(o);
  ASSERT_TRUE(child);
  EXPECT_EQ(ReadAll(child->TakeStdout()), std::to_string(before.rlim_cur) + "\n");
  EXPECT_EQ(child->WaitForExit(), 0);
  rlimit now{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, before.rlim_cur + 128);  // this process keeps its own
  ::setrlimit(RLIMIT_NOFILE, &original);
}

}  // namespace
}  // namespace las::transport
