#include "tools/unix_listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cerrno>
#include <cstring>

#include "tools/refusal_tally.h"

namespace las::tools {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

struct UnixListener::Impl {
  explicit Impl(boost::asio::io_context& io) : acceptor(io), retry(io) {}
  boost::asio::local::stream_protocol::acceptor acceptor;
  boost::asio::steady_timer retry;
  UniqueFd spare;  // given up for a moment to shed a pending connection
  RefusalTally shed;     // this shortage's connections closed unanswered
  RefusalTally waiting;  // this shortage's attempts that found no descriptor to shed with
  bool closed = false;
};

namespace {

UniqueFd OpenSpare() { return UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC)); }

bool OutOfDescriptors(const boost::system::error_code& error) {
  return error == boost::asio::error::no_descriptors ||
         error == boost::system::errc::too_many_files_open_in_system;
}

}  // namespace

Result<std::unique_ptr<UnixListener>> UnixListener::Bind(boost::asio::io_context& io,
                                                         const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid()) {
      return Denied(path + " exists and is not a socket of this user");
    }
    if (::unlink(path.c_str()) != 0) return IoError(Errno("remove stale " + path));
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    return InvalidArgument("socket path too long for a Unix socket: " + path);
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return IoError(Errno("socket"));
  // bind(2) makes the socket file with the process's umask applied; it is set to 0600
  // before listen(2), and until then nobody can connect to it (ECONNREFUSED), whatever its
  // mode. The umask is not narrowed around bind: it is process-wide, and another thread
  // making a directory meanwhile got it too (probe FP1: heads/ made 0600).
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return IoError(Errno("bind " + path));
  }
  if (::chmod(path.c_str(), 0600) != 0) return IoError(Errno("chmod " + path));
  if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) || (st.st_mode & 0777) != 0600) {
    return IoError("the socket " + path + " did not get mode 0600");
  }
  if (::listen(fd.get(), SOMAXCONN) != 0) return IoError(Errno("listen " + path));
  auto impl = std::make_unique<Impl>(io);
  impl->spare = OpenSpare();
  boost::system::error_code error;
  impl->acceptor.assign(boost::asio::local::stream_protocol(), fd.Release(), error);
  if (error) return IoError("listen " + path + ": " + error.message());
  return std::unique_ptr<UnixListener>(
      new UnixListener(std::move(impl), path, st.st_dev, st.st_ino));
}

UnixListener::UnixListener(std::unique_ptr<Impl> impl, std::string path, dev_t dev, ino_t ino)
    : impl_(std::move(impl)), path_(std::move(path)), dev_(dev), ino_(ino) {}

UnixListener::~UnixListener() = default;

void UnixListener::Accept(Callbacks callbacks) {
  callbacks_ = std::move(callbacks);
  AcceptNext();
}

void UnixListener::AcceptNext() {
  if (impl_->closed) return;
  if (!impl_->spare.valid()) impl_->spare = OpenSpare();
  impl_->acceptor.async_accept([this](const boost::system::error_code& error,
                                      boost::asio::local::stream_protocol::socket peer) {
    if (error == boost::asio::error::operation_aborted || impl_->closed) return;
    if (!error) {
      impl_->shed = RefusalTally();
      impl_->waiting = RefusalTally();
      UniqueFd fd(peer.release());
      ucred cred{};
      socklen_t length = sizeof cred;
      if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0 ||
          cred.uid != ::geteuid()) {
        const uid_t uid = cred.uid;
        fd.Reset();  // closed before anything is read from or written to it
        if (callbacks_.on_refused) callbacks_.on_refused(uid);
      } else {
        const int flags = ::fcntl(fd.get(), F_GETFL);
        if (flags >= 0) (void)::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
        callbacks_.on_connection(std::move(fd));
      }
      AcceptNext();
      return;
    }
    if (OutOfDescriptors(error)) return OnOutOfDescriptors();
    RetryLater();
  });
}

void UnixListener::OnOutOfDescriptors() {
  const auto note = [this](const std::string& text) {
    if (callbacks_.on_note) callbacks_.on_note("out of file descriptors (see `ulimit -n`): " + text);
  };
  if (ShedOnePending()) {
    if (impl_->shed.Count()) {
      note(std::to_string(impl_->shed.count()) + " " + callbacks_.what +
           "(s) closed unanswered so far");
    }
    AcceptNext();
    return;
  }
  if (impl_->waiting.Count()) {
    note("no descriptor could be freed to close a new " + callbacks_.what +
         ", which waits until one is (" + std::to_string(impl_->waiting.count()) +
         " attempt(s) so far)");
  }
  RetryLater();
}

bool UnixListener::ShedOnePending() {
  impl_->spare.Reset();
  UniqueFd pending(::accept4(impl_->acceptor.native_handle(), nullptr, nullptr,
                             SOCK_CLOEXEC | SOCK_NONBLOCK));
  const bool shed = pending.valid();
  pending.Reset();  // before the spare is taken back: the two need the same descriptor
  impl_->spare = OpenSpare();
  return shed;
}

// Other accept errors are transient for a listener too: retry shortly, without spinning.
void UnixListener::RetryLater() {
  impl_->retry.expires_after(std::chrono::milliseconds(100));
  impl_->retry.async_wait([this](const boost::system::error_code& waited) {
    if (!waited) AcceptNext();
  });
}

void UnixListener::Close() {
  if (impl_->closed) return;
  impl_->closed = true;
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
  impl_->retry.cancel();
}

void UnixListener::RemoveSocketFile() {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) {
    ::unlink(path_.c_str());
  }
}

}  // namespace las::tools
