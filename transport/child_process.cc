#include "transport/child_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "transport/proc_stat.h"
#include "transport/spawn_id.h"

namespace las::transport {
namespace {

// The children RealProcessSpawner made and no ChildProcess has reaped yet, each with the
// serial of its spawn (the number in its LAS_SPAWN_ID).
std::mutex& SpawnedMutex() {
  static std::mutex* mutex = new std::mutex();
  return *mutex;
}
std::unordered_map<pid_t, uint64_t>& SpawnedPids() {
  static auto* pids = new std::unordered_map<pid_t, uint64_t>();
  return *pids;
}
void ForgetSpawned(pid_t pid) {
  std::lock_guard<std::mutex> lock(SpawnedMutex());
  SpawnedPids().erase(pid);
}
std::atomic<uint64_t> spawn_serials{0};

// How much of an inherited LAS_SPAWN_ID a child's is built on (a Las run by a Las).
constexpr size_t kMostInheritedSpawnId = 1024;

// "<this process's pid>.": how the part of a LAS_SPAWN_ID this process gives begins.
std::string SpawnIdPrefix() { return std::to_string(::getpid()) + "."; }

// A child's LAS_SPAWN_ID: the one this process was started with, if any, then its own
// "<pid>.<serial>", comma-separated. So a Las that is itself a child passes on the id of
// its own spawn, and what its children leave is still known as that spawn's (probe BB2).
std::string SpawnIdFor(uint64_t serial) {
  std::string id = SpawnIdPrefix() + std::to_string(serial);
  const char* inherited = std::getenv(kSpawnIdVariable);
  if (inherited == nullptr || *inherited == '\0') return id;
  return std::string(inherited).substr(0, kMostInheritedSpawnId) + "," + id;
}

// The serial this process gave in a LAS_SPAWN_ID value (its "<pid>.<serial>" part), or 0.
uint64_t OwnSerialIn(std::string_view id) {
  for (const SpawnIdPart& part : SpawnIdParts(id)) {
    if (part.spawner == ::getpid()) return part.serial;
  }
  return 0;
}

// The spawn serial each adopted orphan carries (0: none of this process's), read once per
// process: the environment it was started with does not change, and reading it again on
// every SIGCHLD for every long-lived orphan slowed every session (probe BB3). An entry
// goes when its process is no longer an adopted orphan. SpawnedMutex held.
std::unordered_map<pid_t, uint64_t>& KnownOrphanSerials() {
  static auto* serials = new std::unordered_map<pid_t, uint64_t>();
  return *serials;
}

// Whether `pid`, a process this one adopted, descends from a child this process spawned
// and has reaped since: its LAS_SPAWN_ID names such a spawn. SpawnedMutex held.
bool LeftByAnEndedChild(pid_t pid) {
  auto known = KnownOrphanSerials().find(pid);
  if (known == KnownOrphanSerials().end()) {
    const std::optional<std::string> id = SpawnIdOf(pid);
    if (!id) return false;  // unreadable now: looked at again next time
    known = KnownOrphanSerials().emplace(pid, OwnSerialIn(*id)).first;
  }
  const uint64_t serial = known->second;
  if (serial == 0 || serial > spawn_serials.load()) return false;
  return std::none_of(SpawnedPids().begin(), SpawnedPids().end(),
                      [&](const auto& spawned) { return spawned.second == serial; });
}

// The soft RLIMIT_NOFILE before RaiseOpenFileSoftLimit first raised it; 0 while it never
// has. Children get it back.
std::atomic<rlim_t> children_open_file_soft_limit{0};

// Every child of this process: each thread's list (an adopted process joins one of them).
std::vector<pid_t> ChildrenOfThisProcess() {
  std::vector<pid_t> children;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream list(task.path() / "children");
    for (long pid = 0; list >> pid;) children.push_back(static_cast<pid_t>(pid));
  }
  return children;
}

// The children of this process that no ChildProcess owns: adopted. Forgets the serials
// of processes that are not among them any more. SpawnedMutex held.
std::vector<pid_t> AdoptedOrphans() {
  std::vector<pid_t> adopted = ChildrenOfThisProcess();
  std::erase_if(adopted, [](pid_t pid) { return SpawnedPids().count(pid) != 0; });
  std::erase_if(KnownOrphanSerials(), [&](const auto& known) {
    return std::find(adopted.begin(), adopted.end(), known.first) == adopted.end();
  });
  return adopted;
}

// SIGKILL to every living adopted orphan that an ended child left (LeftByAnEndedChild),
// without waiting: each end raises SIGCHLD, and whoever reaps then (ReapAdoptedOrphans)
// ends in turn what it leaves. SpawnedMutex held.
void SignalOrphansOfEndedChildren() {
  for (const pid_t pid : AdoptedOrphans()) {
    if (LeftByAnEndedChild(pid)) (void)::kill(pid, SIGKILL);
  }
}

// What the child reports through the error pipe when it cannot exec.
enum class Stage : int { kDup = 1, kChdir = 2, kExec = 3 };

struct ChildError {
  int stage;
  int err;
};

std::string_view StageName(int stage) {
  switch (static_cast<Stage>(stage)) {
    case Stage::kDup: return "redirect stdio";
    case Stage::kChdir: return "chdir";
    case Stage::kExec: return "exec";
  }
  return "start";
}

Status ErrnoStatus(std::string_view what, int err) {
  std::string msg = std::string(what) + ": " + std::strerror(err);
  if (err == ENOENT || err == ENOTDIR) return NotFound(std::move(msg));
  if (err == EACCES || err == EPERM) return Denied(std::move(msg));
  return IoError(std::move(msg));
}

// Only async-signal-safe calls from here to exec.
[[noreturn]] void ChildFail(int error_fd, Stage stage) {
  ChildError e{static_cast<int>(stage), errno};
  ssize_t ignored = ::write(error_fd, &e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

void MarkCloexecRange(unsigned lo, unsigned hi) {
  if (lo > hi) return;
  if (::syscall(SYS_close_range, lo, hi, CLOSE_RANGE_CLOEXEC) == 0) return;
  // Old kernels: set the flag one descriptor at a time, up to the limit.
  long max = ::sysconf(_SC_OPEN_MAX);
  unsigned top = std::min<unsigned>(hi, max > 0 ? static_cast<unsigned>(max) : 1024U);
  for (unsigned fd = lo; fd <= top && fd < static_cast<unsigned>(INT_MAX); ++fd) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  }
}

[[noreturn]] void RunChild(pid_t parent, int in_read, int out_write, int err_write,
                           int error_fd, const char* cwd, const std::vector<int>& keep_sorted,
                           int exec_fd, const rlimit* open_files, char* const* argv,
                           char* const* envp) {
  ::setpgid(0, 0);
  // Dies with its parent, however that ends (a signal with no handler, SIGKILL): a child
  // stuck before it reads its stdin would otherwise never notice. If the parent is already
  // gone, nothing is left to serve.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  if (open_files != nullptr) ::setrlimit(RLIMIT_NOFILE, open_files);

  // Reset what exec would otherwise inherit: ignored signals and the blocked mask.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  // Move our pipe ends above 2 first so the dup2 calls below cannot clobber each other.
  int fds[3] = {in_read, out_write, err_write};
  for (int& fd : fds) {
    if (fd < 3) {
      fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
      if (fd < 0) ChildFail(error_fd, Stage::kDup);
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (::dup2(fds[i], i) < 0) ChildFail(error_fd, Stage::kDup);
  }
  if (cwd != nullptr && ::chdir(cwd) != 0) ChildFail(error_fd, Stage::kChdir);

  // Everything above 2 closes on exec, except the descriptors we were told to keep.
  unsigned next = 3;
  for (int keep : keep_sorted) {
    auto k = static_cast<unsigned>(keep);
    if (k > next) MarkCloexecRange(next, k - 1);
    next = std::max(next, k + 1);
  }
  MarkCloexecRange(next, ~0U);
  for (int keep : keep_sorted) ::fcntl(keep, F_SETFD, 0);

  if (exec_fd >= 0) {
    ::fexecve(exec_fd, argv, envp);
  } else {
    ::execve(argv[0], argv, envp);
  }
  ChildFail(error_fd, Stage::kExec);
}

}  // namespace

ChildProcess::ChildProcess(pid_t pid, UniqueFd stdin_write, UniqueFd stdout_read,
                           UniqueFd stderr_read)
    : pid_(pid),
      stdin_(std::move(stdin_write)),
      stdout_(std::move(stdout_read)),
      stderr_(std::move(stderr_read)) {}

ChildProcess::~ChildProcess() {
  if (!reaped_) KillAndReap();
}

Status ChildProcess::SignalGroup(int signal) {
  if (reaped_) return Status::Ok();  // the group id may belong to someone else by now
  const int group_error = ::kill(-pid_, signal) == 0 ? 0 : errno;
  // The leader too, by its pid: it may have left its group (setpgid into another group of
  // the session), which the group's signal then misses, and a wait for it would never end.
  // Not reaped, its pid is still its own.
  if (::kill(pid_, signal) != 0 && errno != ESRCH) return ErrnoStatus("kill", errno);
  if (group_error != 0 && group_error != ESRCH) return ErrnoStatus("kill", group_error);
  return Status::Ok();
}

bool ChildProcess::HasExited() {
  if (reaped_) return true;
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid != 0;
}

bool ChildProcess::IsExiting() {
  if (HasExited()) return true;
  constexpr unsigned long kPfExiting = 0x4;  // include/linux/sched.h
  const std::optional<std::string> stat = ReadProcStat(pid_);
  const std::optional<unsigned long> flags = stat ? ProcStatFlags(*stat) : std::nullopt;
  return flags && (*flags & kPfExiting) != 0;
}

void ChildProcess::ReapGroupMembers() {
  // Members that are our children: grandchildren re-parented to us (subreaper), or
  // anything the leader left behind. All were sent SIGKILL, so this wait is short.
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(-pid_, &status, 0);
    if (r > 0) continue;
    if (r < 0 && errno == EINTR) continue;
    break;  // ECHILD: none left
  }
}

int ChildProcess::KillAndReap() {
  if (reaped_) return wait_status_;
  // The leader is not reaped yet, so the group id cannot have been reused.
  (void)SignalGroup(SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  ForgetSpawned(pid_);
  reaped_ = true;
  wait_status_ = r == pid_ ? status : 0;
  ReapGroupMembers();
  // What it started outside its group and left to this subreaper when it, or their
  // parent, exited: a restarted surface must not leave its forerunner's processes running
  // until Las exits (probe AW3).
  std::lock_guard<std::mutex> lock(SpawnedMutex());
  SignalOrphansOfEndedChildren();
  return wait_status_;
}

int ChildProcess::WaitForExit() {
  if (reaped_) return wait_status_;
  siginfo_t info;
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 &&
         errno == EINTR) {
  }
  return KillAndReap();
}

int ChildProcess::Terminate(std::chrono::nanoseconds grace, const MonotonicClock& clock) {
  if (reaped_) return wait_status_;
  (void)SignalGroup(SIGTERM);
  const int64_t start = clock.NowNanos();
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  while (!HasExited() && clock.NowNanos() - start < grace.count()) {
    const int64_t left_ms = (grace.count() - (clock.NowNanos() - start)) / 1000000 + 1;
    const int slice = static_cast<int>(std::clamp<int64_t>(left_ms, 1, 50));
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, slice);
    } else {
      ::usleep(1000);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  return KillAndReap();
}

Result<std::unique_ptr<ChildProcess>> RealProcessSpawner::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return InvalidArgument("spawn: empty argv");
  if (options.exec_fd < 0 && options.argv[0].empty()) {
    return InvalidArgument("spawn: empty program path");
  }
  if (options.exec_fd < 0 && options.argv[0].front() != '/') {
    return InvalidArgument("spawn: program path must be absolute");
  }
  std::vector<int> keep = options.keep_fds;
  if (options.exec_fd >= 0) {
    if (::fcntl(options.exec_fd, F_GETFD) < 0) return InvalidArgument("spawn: exec_fd is not open");
    // A `#!` script is run by its interpreter as /dev/fd/N, so N must stay open across the
    // exec; a binary needs no such thing, and its descriptor would stay open in the child
    // and every process it starts (probe AA4).
    char magic[2] = {};
    if (::pread(options.exec_fd, magic, sizeof magic, 0) == 2 && magic[0] == '#' && magic[1] == '!') {
      keep.push_back(options.exec_fd);
    }
  }
  for (int fd : keep) {
    if (fd <= 2) return InvalidArgument("spawn: kept descriptors must be above 2");
    if (::fcntl(fd, F_GETFD) < 0) return InvalidArgument("spawn: a kept descriptor is not open");
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());

  // Everything the child needs is prepared before fork.
  std::vector<char*> argv;
  argv.reserve(options.argv.size() + 1);
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const uint64_t serial = ++spawn_serials;
  const std::string spawn_id = std::string(kSpawnIdName) + SpawnIdFor(serial);
  std::vector<char*> envp;
  envp.reserve(options.env.size() + 2);
  for (const std::string& e : options.env) {
    if (!e.starts_with(kSpawnIdName)) envp.push_back(const_cast<char*>(e.c_str()));
  }
  envp.push_back(const_cast<char*>(spawn_id.c_str()));
  envp.push_back(nullptr);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  rlimit open_files{};
  const rlim_t children_soft = children_open_file_soft_limit.load();
  const bool restore_open_files = children_soft != 0 && ::getrlimit(RLIMIT_NOFILE, &open_files) == 0;
  if (restore_open_files) open_files.rlim_cur = std::min(children_soft, open_files.rlim_max);

  int in[2];
  int out[2];
  int err[2] = {-1, -1};
  int report[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return ErrnoStatus("pipe", errno);
  UniqueFd in_r(in[0]), in_w(in[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) return ErrnoStatus("pipe", errno);
  UniqueFd out_r(out[0]), out_w(out[1]);
  UniqueFd err_r, err_w;
  if (options.stderr_mode == SpawnOptions::Stderr::kPipe) {
    if (::pipe2(err, O_CLOEXEC) != 0) return ErrnoStatus("pipe", errno);
    err_r.Reset(err[0]);
    err_w.Reset(err[1]);
  } else {
    err_w.Reset(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (!err_w.valid()) return ErrnoStatus("open /dev/null", errno);
  }
  if (::pipe2(report, O_CLOEXEC) != 0) return ErrnoStatus("pipe", errno);
  UniqueFd report_r(report[0]), report_w(report[1]);

  // Held from before fork until the child is known, so ReapAdoptedOrphans never takes
  // it for an adopted orphan.
  std::unique_lock<std::mutex> spawning(SpawnedMutex());
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoStatus("fork", errno);
  if (pid == 0) {
    RunChild(parent, in_r.get(), out_w.get(), err_w.get(), report_w.get(), cwd, keep,
             options.exec_fd, restore_open_files ? &open_files : nullptr, argv.data(),
             envp.data());
  }
  SpawnedPids().emplace(pid, serial);
  spawning.unlock();
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  in_r.Reset();
  out_w.Reset();
  err_w.Reset();
  report_w.Reset();

  ChildError child_error{};
  ssize_t n;
  do {
    n = ::read(report_r.get(), &child_error, sizeof child_error);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ForgetSpawned(pid);
    return ErrnoStatus("spawn: " + std::string(StageName(child_error.stage)), child_error.err);
  }
  return std::make_unique<ChildProcess>(pid, std::move(in_w), std::move(out_r),
                                        std::move(err_r));
}

ProcessSpawner& DefaultProcessSpawner() {
  static RealProcessSpawner* spawner = new RealProcessSpawner();
  return *spawner;
}

size_t ReapAdoptedOrphans(bool kill_living) {
  std::lock_guard<std::mutex> lock(SpawnedMutex());
  size_t reaped = 0;
  // An orphan killed here hands its own children to this process (the subreaper), after
  // the list was read: so, when killing, read it again until a round finds no one. Each
  // round kills every orphan it lists, which then can start no one, so the rounds end;
  // the bound only guards against a list that cannot be read right.
  for (int round = 0; round < 1000; ++round) {
    size_t this_round = 0;
    if (!kill_living) SignalOrphansOfEndedChildren();
    for (const pid_t pid : AdoptedOrphans()) {  // a ChildProcess's own child it reaps itself
      ++this_round;
      if (kill_living) (void)::kill(pid, SIGKILL);
      int status = 0;
      pid_t r;
      do {
        r = ::waitpid(pid, &status, kill_living ? 0 : WNOHANG);
      } while (r < 0 && errno == EINTR);
      if (r == pid) ++reaped;
    }
    if (!kill_living || this_round == 0) break;
  }
  return reaped;
}

Status BecomeChildSubreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return ErrnoStatus("prctl", errno);
  return Status::Ok();
}

Status KeepProcessPrivate() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return ErrnoStatus("prctl", errno);
  return Status::Ok();
}

Result<rlim_t> RaiseOpenFileSoftLimit(rlim_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return ErrnoStatus("getrlimit", errno);
  if (limit.rlim_cur >= wanted) return limit.rlim_cur;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = std::min(limit.rlim_max, wanted);
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return before;
  rlim_t unset = 0;
  children_open_file_soft_limit.compare_exchange_strong(unset, before);
  return limit.rlim_cur;
}

void IgnoreWriteSignals() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int signal : {SIGPIPE, SIGXFSZ}) {
      struct sigaction current {};
      if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
        struct sigaction ign {};
        ign.sa_handler = SIG_IGN;
        ::sigaction(signal, &ign, nullptr);
      }
    }
  });
}

}  // namespace las::transport
