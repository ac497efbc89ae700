// UnixListener: the daemon's listening Unix stream socket, on the loop.
//
// Bind() replaces a stale socket file at `path` (the caller has made sure no daemon
// answers there: see tools/daemon_socket.h) and creates the socket with mode 0600 (umask
// 0177 around bind, then fchmod-equivalent chmod checked by lstat). Every accepted
// connection's peer credentials (SO_PEERCRED) are checked: a peer whose uid differs from
// this process's effective uid is closed at once and reported through `on_refused`; the
// others are handed to `on_connection` as a non-blocking, close-on-exec descriptor.
//
// Close() stops accepting; the socket file stays until RemoveSocketFile(), which removes
// it only if it is still the file this listener created (same device and inode).
//
// Errors: Bind returns kIo (bind/listen/chmod failed), kDenied (an existing file at `path`
// is not a socket owned by us).
// Threading: construct, Accept, Close on the loop's thread; callbacks run on it. Destroy
// before the io_context.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace boost::asio {
class io_context;
}

namespace las::tools {

class UnixListener {
 public:
  static Result<std::unique_ptr<UnixListener>> Bind(boost::asio::io_context& io,
                                                    const std::string& path);
  ~UnixListener();
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Accepts until Close(). `on_connection` gets each accepted peer of this uid.
  void Accept(std::function<void(UniqueFd)> on_connection,
              std::function<void(uid_t)> on_refused);
  void Close();
  void RemoveSocketFile();
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  UnixListener(std::unique_ptr<Impl> impl, std::string path, dev_t dev, ino_t ino);
  void AcceptNext();

  std::unique_ptr<Impl> impl_;
  std::string path_;
  dev_t dev_;
  ino_t ino_;
  std::function<void(UniqueFd)> on_connection_;
  std::function<void(uid_t)> on_refused_;
};

}  // namespace las::tools
