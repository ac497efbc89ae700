// Child processes: spawn one in its own process group with an exact argv, working
// directory and environment; end the whole group and reap it.
//
// Spawn contract (RealProcessSpawner):
// - The child leads a new process group (pgid == pid), so one signal reaches it and
//   everything it started that stayed in the group.
// - argv is passed exactly; the program is argv[0] (an absolute path, no PATH search) or,
//   with `exec_fd`, that already-open file (fexecve: the bytes that were hashed are the
//   bytes that run; for a `#!` script the descriptor stays open in the child, since the
//   interpreter reads the script through /dev/fd/N).
// - The environment is exactly `env` ("NAME=value"); nothing is inherited; one entry is
//   added: LAS_SPAWN_ID=<this process's pid>.<spawn serial>, replacing any in `env`, after
//   the LAS_SPAWN_ID this process was started with, if any, and a comma (a Las run as a
//   child passes its own spawn's on). What the child starts inherits it, and it is how
//   this process later tells what an ended child left behind (below).
// - stdin and stdout are pipes owned by the returned ChildProcess. stderr goes to
//   /dev/null (kDiscard: nothing can block on it) or to a third pipe (kPipe) that the
//   owner must keep draining (McpClient does so on its loop, line-bounded).
// - Descriptors listed in `keep_fds` stay open at the same numbers; every other
//   descriptor above 2 is close-on-exec in the child, whatever its flag in the parent.
// - Signal dispositions and the signal mask are reset to defaults in the child, and so is
//   the soft open-file limit when RaiseOpenFileSoftLimit raised this process's.
// - The child gets SIGKILL when the thread that spawned it ends (PR_SET_PDEATHSIG): when
//   this process dies without ending it (killed, or a signal it does not handle), the
//   child does not stay behind. So spawn on a thread that lives as long as the child
//   should (Las spawns on its loop thread). Its own children are not reached this way.
// - Exec failure is reported as an error (the child never runs user code); spawn is
//   synchronous and returns once the exec succeeded or failed.
//
// Termination: Terminate() sends SIGTERM to the group, waits for the leader to exit for
// at most `grace` as measured by the given MonotonicClock, then sends SIGKILL to the
// group (whatever is left of it is an orphan by now) and reaps the leader and every
// group member that is this process's child. Grandchildren that outlive the leader are
// re-parented to init unless this process is a child subreaper (BecomeChildSubreaper),
// in which case they are reaped here too: no zombies, no orphans. Those outside the group
// (setsid, a double fork) are sent SIGKILL then too, if they still carry the ended child's
// LAS_SPAWN_ID (a process that dropped it from its environment, or whose environment this
// process may not read — one that made itself non-dumpable, unless this one may ptrace
// it — is ended only at exit: ReapAdoptedOrphans with kill_living; one whose environment
// could not be read at that moment, in the middle of an exec, is looked at again by the
// next ReapAdoptedOrphans).
//
// Errors: Status values, never exceptions. Codes: kInvalidArgument (bad options),
// kNotFound (program or cwd missing), kDenied (EACCES/EPERM), kIo (anything else).
// Messages name the failing step and errno text, never child output.
//
// Thread safety: a ChildProcess is used by one thread at a time. RealProcessSpawner is
// stateless and safe to share. The spawner forks: other threads' locks are not taken in
// the child (only async-signal-safe calls run between fork and exec).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/status.h"
#include "base/unique_fd.h"

namespace las::transport {

struct SpawnOptions {
  std::vector<std::string> argv;  // non-empty; argv[0] absolute unless exec_fd is set
  std::string cwd;                // working directory; empty = the parent's
  std::vector<std::string> env;   // the complete environment, "NAME=value" each
  int exec_fd = -1;               // >= 0: execute this open file instead of argv[0]
  std::vector<int> keep_fds;      // extra descriptors (> 2) to keep open in the child
  enum class Stderr { kDiscard, kPipe };
  Stderr stderr_mode = Stderr::kDiscard;
};

class ChildProcess {
 public:
  // Takes ownership of a started child (the leader of process group `pid`) and its pipes.
  ChildProcess(pid_t pid, UniqueFd stdin_write, UniqueFd stdout_read, UniqueFd stderr_read);
  // If not yet reaped: SIGKILL to the group, then reap (blocks only while the kernel
  // tears the processes down).
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The parent's ends of the pipes; each may be taken once (then invalid here).
  UniqueFd TakeStdin() { return std::move(stdin_); }
  UniqueFd TakeStdout() { return std::move(stdout_); }
  UniqueFd TakeStderr() { return std::move(stderr_); }  // invalid unless Stderr::kPipe

  // Sends `signal` to the whole process group, and to the leader by its pid (it may have
  // moved to another group). Ok if they are already gone.
  Status SignalGroup(int signal);
  // True once the leader has exited (it is not reaped by this call).
  bool HasExited();
  // True once the leader has begun to exit (Linux: PF_EXITING in /proc/PID/stat) or has
  // exited: its output closes on the way, before a wait can see it (probe HU1: a child
  // another process killed was taken for one Las ended, its SIGTERM sent after the EOF).
  bool IsExiting();
  // SIGKILL to the group, reap the leader (blocking) and any group members that are our
  // children. Returns the leader's raw wait status. Idempotent.
  int KillAndReap();
  // Blocks until the leader exits by itself, then KillAndReap() (ending anything it left
  // in its group). Returns the leader's raw wait status.
  int WaitForExit();
  // SIGTERM to the group, wait up to `grace` (by `clock`) for the leader, then
  // KillAndReap(). Returns the leader's raw wait status.
  int Terminate(std::chrono::nanoseconds grace,
                const MonotonicClock& clock = SystemMonotonicClock());

  bool reaped() const { return reaped_; }
  // The leader's raw wait status once reaped.
  std::optional<int> wait_status() const {
    return reaped_ ? std::optional<int>(wait_status_) : std::nullopt;
  }

 private:
  void ReapGroupMembers();

  pid_t pid_;
  UniqueFd stdin_;
  UniqueFd stdout_;
  UniqueFd stderr_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

// Starts child processes. Injected so tests can substitute failures.
class ProcessSpawner {
 public:
  virtual ~ProcessSpawner() = default;
  virtual Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options) = 0;
};

// fork + exec as described above.
class RealProcessSpawner final : public ProcessSpawner {
 public:
  Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions& options) override;
};

// A process-wide RealProcessSpawner; never null, lives for the whole program.
ProcessSpawner& DefaultProcessSpawner();

// Makes this process the child subreaper (prctl PR_SET_CHILD_SUBREAPER), so orphaned
// descendants are re-parented here and reaped by ChildProcess. Process-wide: call it once
// at startup (las serve, tests), not from library code.
Status BecomeChildSubreaper();

// Makes this process non-dumpable (prctl PR_SET_DUMPABLE 0): its /proc entries — environ,
// which holds every LAS_CREDENTIAL_*, mem, fd — become root's, so a program of the same
// user (a child surface among them) can neither read them nor ptrace this process, and no
// core dump carries its memory. A child is dumpable again from its exec on. Process-wide:
// call it once at startup (the las program).
Status KeepProcessPrivate();

// Processes this child subreaper adopted — what a child started outside its process group
// (setsid) and left behind when it exited — belong to no ChildProcess, so nothing else
// reaps them. ReapAdoptedOrphans reaps those that have exited (zombies would otherwise pile
// up under a long-running server), and sends SIGKILL, without waiting, to those still
// running whose LAS_SPAWN_ID names a child already reaped (their ends raise SIGCHLD, and
// the next call reaps them and so ends what they leave in turn); orphans of children still
// running are theirs, and left alone. With `kill_living` it sends SIGKILL to every one
// still running and waits for them, and for what they leave in turn (at the end of a
// command: no orphans outlive Las).
// Only for a process whose every child comes from RealProcessSpawner (the las program):
// any child made otherwise looks adopted and would be reaped, or killed, here. Returns
// how many it reaped. Thread-safe (serialized with Spawn).
size_t ReapAdoptedOrphans(bool kill_living);

// Raises this process's soft open-file limit (RLIMIT_NOFILE) toward `wanted`, capped by
// the hard limit, and returns the soft limit in force afterwards (which may be below
// `wanted`). Children spawned afterwards by RealProcessSpawner get back the soft limit the
// process had before its first raise: a child written for the usual 1024 (select() and
// FD_SETSIZE) must not be handed more. Process-wide; for the las program's start (las
// daemon), not for library code. Errors: kIo when getrlimit fails.
Result<rlim_t> RaiseOpenFileSoftLimit(rlim_t wanted);

// Sets SIGPIPE and SIGXFSZ to ignored where they are at their default, so a write to a
// dead child's stdin yields EPIPE, and a write past the file-size limit (ulimit -f) EFBIG —
// the log then refuses appends — instead of killing this process. Process-wide,
// idempotent; McpClient calls it. Children get the default dispositions back.
void IgnoreWriteSignals();

}  // namespace las::transport
