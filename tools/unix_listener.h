// UnixListener: the daemon's listening Unix stream socket, on the loop.
//
// Bind() replaces a stale socket file at `path` (the caller has made sure no daemon
// answers there: see tools/daemon_socket.h) and creates the socket with mode 0600 (umask
// 0177 around bind, then fchmod-equivalent chmod checked by lstat). Every accepted
// connection's peer credentials (SO_PEERCRED) are checked: a peer whose uid differs from
// this process's effective uid is closed at once and reported through `on_refused`; the
// others are handed to `on_connection` as a non-blocking, close-on-exec descriptor.
//
// Out of descriptors (EMFILE, ENFILE), a pending connection would wait in the backlog with
// no answer: the listener keeps one spare descriptor (/dev/null) for that moment, frees it,
// accepts the pending connection, closes it unanswered (its client sees the connection end
// at once, as at a connection cap), and takes the spare back (or, failing that, at its next
// accept). When even that finds no descriptor (another thread took it, or the limit was
// lowered below the spare's number), the connection waits and the listener tries again
// every 100 ms. Both are told through `on_note` at the 1st, 2nd, 4th, 8th... time of each
// shortage (tools/refusal_tally.h); a connection accepted again ends the shortage.
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

  struct Callbacks {
    std::function<void(UniqueFd)> on_connection;  // each accepted peer of this uid
    std::function<void(uid_t)> on_refused;        // a peer of another uid, closed
    std::function<void(const std::string&)> on_note;  // a shortage (above); may be empty
    std::string what = "connection";                  // what the notes call a connection
  };
  // Accepts until Close().
  void Accept(Callbacks callbacks);
  void Close();
  void RemoveSocketFile();
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  UnixListener(std::unique_ptr<Impl> impl, std::string path, dev_t dev, ino_t ino);
  void AcceptNext();
  void RetryLater();
  bool ShedOnePending();
  void OnOutOfDescriptors();

  std::unique_ptr<Impl> impl_;
  std::string path_;
  dev_t dev_;
  ino_t ino_;
  Callbacks callbacks_;
};

}  // namespace las::tools
