// Where `las daemon` listens for a given log, and how a client reaches it safely.
//
// The socket is `<dir>/<name>.sock`: <dir> is `$XDG_RUNTIME_DIR/las` (created 0700), or
// `/tmp/las-<uid>` when XDG_RUNTIME_DIR is unset or not absolute; <name> is the first 16
// hex digits of the SHA-256 of the log directory's canonical absolute path, so every
// `las` given the same log (through any path spelling) finds the same daemon. Next to it,
// `<dir>/<name>.operator.sock` is the operator-only socket that an embedded `las serve`, and
// `las daemon` beside its own, bind (tools/operator_listener.h; `las serve`'s bridge never
// connects there). The
// directory must be a real directory (not a symlink), owned by this process's effective
// uid, with no group or other permission bits; the socket itself is 0600. Nothing here
// trusts a file someone else could have placed.
//
// Errors: kDenied for an unsafe directory or socket (wrong owner, mode, type); kNotFound
// when no daemon listens (no socket file, or a stale one nobody accepts on); kIo for other
// system failures; kInvalidArgument when the path would not fit a Unix socket address, or
// when the directory's path holds a control character (a byte below 0x20, or 0x7f): the
// socket path is printed as one line (`las daemon`) and read back as a path, so such a
// directory is refused, the same for the daemon, the `las serve` bridge and the
// operator's commands.
//
// Threading: plain functions; blocking (connect to a local socket never waits long).
#pragma once

#include <chrono>
#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "base/unique_fd.h"

namespace las::tools {

struct DaemonSocket {
  std::string dir;   // the private runtime directory
  std::string path;  // the socket inside it
  std::string operator_path;  // the embedded server's operator-only socket (same directory)
};

// `xdg_runtime_dir`: the value of XDG_RUNTIME_DIR ("" when unset). With `create`, the
// directory is made (0700) when missing; without, a missing directory is kNotFound.
// A path too long for a socket address is left for its bind or connect to refuse
// (kInvalidArgument naming that path).
Result<DaemonSocket> DaemonSocketFor(const std::string& log_dir,
                                     const std::string& xdg_runtime_dir, bool create);

// Connects to the daemon listening at `socket_path`: the file must be a socket owned by
// this uid, and the process accepting on it must run as this uid (SO_PEERCRED). Returns
// the connected, blocking descriptor (close-on-exec).
Result<UniqueFd> ConnectToDaemon(const std::string& socket_path);
// Writes all of `data` to a connected socket (EINTR retried, no SIGPIPE). false: the peer
// is gone or the socket failed.
bool SendAll(int fd, const std::string& data);

// The daemon of `log_dir`, connected; kNotFound when none is running.
Result<UniqueFd> ConnectToDaemonOf(const std::string& log_dir,
                                   const std::string& xdg_runtime_dir);

// Whether `status` (of ConnectToDaemon/ConnectToDaemonOf) found a socket file that nobody
// accepts on: a daemon of the log was killed outright, or is being restarted.
bool FoundStaleSocket(const Status& status);

// ConnectToDaemonOf, tried again every kDaemonRetry while it finds no daemon (kNotFound:
// none yet, one still federating, or one killed outright whose socket was left behind)
// until `wait` has passed on `clock`; then that kNotFound. Any other error at once. For a
// bridge that must never serve embedded (`las serve --bridge-only`): it waits out a daemon
// that is starting or being restarted instead of taking the log itself.
inline constexpr std::chrono::milliseconds kDaemonRetry{100};
Result<UniqueFd> AwaitDaemonOf(const std::string& log_dir, const std::string& xdg_runtime_dir,
                               std::chrono::milliseconds wait, const MonotonicClock& clock);

}  // namespace las::tools
