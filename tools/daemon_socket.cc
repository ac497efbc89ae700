#include "tools/daemon_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>

#include "base/path_error.h"
#include "base/printable_text.h"
#include "trust/digest.h"

namespace las::tools {
namespace {

// Nothing accepts there: a daemon killed outright left the file, or one is stopping (it
// no longer accepts while it drains its calls in flight; probe FK1 called that stale).
constexpr std::string_view kStaleSocket =
    " (stale socket, or its daemon is stopping: nothing accepts there)";

namespace fs = std::filesystem;

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// A private directory: real, ours, no group/other bits.
Status CheckPrivateDir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return NotFound("no runtime directory " + dir);
    // A loop of links, a file on the way: the environment's mistake (exit 2), as `las
    // daemon` says when it makes the directory, not a failing disk.
    return PathErrorStatus(errno, "the daemon's socket directory " + EscapeForTerminal(dir));
  }
  // Under /tmp anyone may make it first (probe FZ5: a planted one said only "owned by
  // another user"): what to do is said.
  const std::string remedy = "; another user may have made it there: set XDG_RUNTIME_DIR to "
                             "a directory only you may write (such as /run/user/" +
                             std::to_string(::geteuid()) + ")";
  if (!S_ISDIR(st.st_mode)) return Denied(dir + " is not a directory (a symlink?)" + remedy);
  if (st.st_uid != ::geteuid()) return Denied(dir + " is owned by another user" + remedy);
  if ((st.st_mode & 077) != 0) {
    return Denied(dir + " is accessible to group or others: chmod 700 it");
  }
  return Status::Ok();
}

// A C0 control or DEL: a byte that would break the socket path's one line or carry a
// terminal escape.
bool HasControlCharacter(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

std::string CanonicalLogDir(const std::string& log_dir) {
  std::error_code error;
  fs::path absolute = fs::absolute(log_dir, error);
  if (error) absolute = log_dir;
  fs::path canonical = fs::weakly_canonical(absolute, error);
  if (error) canonical = absolute.lexically_normal();
  std::string text = canonical.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

Result<DaemonSocket> DaemonSocketFor(const std::string& log_dir,
                                     const std::string& xdg_runtime_dir, bool create) {
  DaemonSocket socket;
  if (!xdg_runtime_dir.empty() && xdg_runtime_dir.front() == '/') {
    socket.dir = xdg_runtime_dir + "/las";
  } else {
    socket.dir = "/tmp/las-" + std::to_string(::geteuid());
  }
  // `las daemon` prints the socket path as its one line on stdout, for a client to use as
  // a path: escaped it would name another file, raw it would be two lines (probe AE1).
  if (HasControlCharacter(socket.dir)) {
    return InvalidArgument("the runtime directory " + EscapeForTerminal(socket.dir) +
                           " (from XDG_RUNTIME_DIR) holds a control character; a daemon "
                           "socket path must be one printable line");
  }
  const std::string name =
      trust::Sha256Hex(trust::Sha256(CanonicalLogDir(log_dir))).substr(0, 16);
  socket.path = socket.dir + "/" + name + ".sock";
  socket.operator_path = socket.dir + "/" + name + ".operator.sock";
  // Before anything is made or started: a daemon found out only at bind(2), after its log,
  // release and children were set up (probe AU4).
  if (socket.operator_path.size() >= sizeof(sockaddr_un::sun_path)) {
    return InvalidArgument("the runtime directory " + EscapeForTerminal(socket.dir) +
                           " (from XDG_RUNTIME_DIR) is too long: its socket paths would be " +
                           std::to_string(socket.operator_path.size()) +
                           " bytes, and a Unix socket address holds " +
                           std::to_string(sizeof(sockaddr_un::sun_path) - 1));
  }
  if (create && ::mkdir(socket.dir.c_str(), 0700) != 0 && errno != EEXIST) {
    const int err = errno;
    if (socket.dir != xdg_runtime_dir + "/las") return IoError(Errno("mkdir " + socket.dir));
    // XDG_RUNTIME_DIR missing, a file, under a file, a loop: the environment is wrong, not
    // the disk, and the message names the variable to fix (probe AU8).
    const std::string shown = EscapeForTerminal(xdg_runtime_dir);
    struct stat runtime {};
    // ENOENT from a directory that is there (/proc): a place where nothing can be made.
    const bool is_directory = ::stat(xdg_runtime_dir.c_str(), &runtime) == 0 && S_ISDIR(runtime.st_mode);
    if ((err == ENOENT || err == ENOTDIR) && !is_directory) {
      return InvalidArgument("XDG_RUNTIME_DIR " + shown + " is not a directory" +
                             (err == ENOENT ? " (it does not exist)" : "") +
                             ", so the daemon's socket directory " + EscapeForTerminal(socket.dir) +
                             " cannot be made there; set XDG_RUNTIME_DIR to your runtime "
                             "directory (a directory of your own, mode 0700)");
    }
    return PathErrorStatus(err, "XDG_RUNTIME_DIR " + shown + ": making the daemon's socket "
                                "directory " + EscapeForTerminal(socket.dir));
  }
  if (Status safe = CheckPrivateDir(socket.dir); !safe.ok()) return safe;
  return socket;
}

bool FoundStaleSocket(const Status& status) {
  return status.code() == Code::kNotFound && status.message().ends_with(kStaleSocket);
}

Result<UniqueFd> ConnectToDaemon(const std::string& socket_path) {
  struct stat st {};
  if (::lstat(socket_path.c_str(), &st) != 0) {
    if (errno == ENOENT) return NotFound("no daemon socket at " + socket_path);
    return IoError(Errno("stat " + socket_path));
  }
  if (!S_ISSOCK(st.st_mode)) return Denied(socket_path + " is not a socket");
  if (st.st_uid != ::geteuid()) return Denied(socket_path + " is owned by another user");
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) {
    return InvalidArgument("socket path too long for a Unix socket: " + socket_path);
  }
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return IoError(Errno("socket"));
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    if (errno == ECONNREFUSED || errno == ENOENT) {
      return NotFound("no daemon listening at " + socket_path + std::string(kStaleSocket));
    }
    return IoError(Errno("connect " + socket_path));
  }
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
    return IoError(Errno("SO_PEERCRED"));
  }
  if (peer.uid != ::geteuid()) return Denied("the daemon at " + socket_path + " runs as another user");
  return fd;
}

Result<UniqueFd> ConnectToDaemonOf(const std::string& log_dir,
                                   const std::string& xdg_runtime_dir) {
  auto socket = DaemonSocketFor(log_dir, xdg_runtime_dir, /*create=*/false);
  if (!socket.ok()) return socket.status();
  return ConnectToDaemon(socket->path);
}

Result<UniqueFd> AwaitDaemonOf(const std::string& log_dir, const std::string& xdg_runtime_dir,
                               std::chrono::milliseconds wait, const MonotonicClock& clock) {
  const int64_t deadline = clock.NowNanos() + std::chrono::nanoseconds(wait).count();
  while (true) {
    Result<UniqueFd> daemon = ConnectToDaemonOf(log_dir, xdg_runtime_dir);
    if (daemon.ok() || daemon.status().code() != Code::kNotFound) return daemon;
    const int64_t left = deadline - clock.NowNanos();
    if (left <= 0) return daemon;
    // Another process's start cannot be awaited otherwise: its socket is the only sign.
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(kDaemonRetry, std::chrono::nanoseconds(left)));
  }
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace las::tools
