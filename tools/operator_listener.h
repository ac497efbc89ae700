// OperatorListener: the log's operator-only socket — the embedded `las serve`'s only
// socket, and `las daemon`'s beside its clients' one — so the operator's
// changes (`las sources enable|disable`, `las grant`, `las revoke`, `las rules add|forget`,
// `las onboarding mark|reset|check`) reach the server that holds the log (docs/DAEMON.md,
// "The operator channel").
//
// Bind() binds `path` (tools/daemon_socket.h DaemonSocket::operator_path: the private 0700
// directory, a 0600 socket, a stale file replaced, peers of another uid refused:
// tools/unix_listener.h) and accepts. Each connection is a DaemonConnection in operator-only
// mode (tools/daemon_connection.h): the operator hello and the fixed operator requests
// (tools/operator_channel.h), anything else refused. It never opens an MCP session, and
// `las serve`'s daemon bridge never connects here (it uses DaemonSocket::path), so a second
// `las serve` of the same log is not mistaken for a daemon client.
//
// Stop(done): stops accepting, stops reading from every connection, removes the socket
// file, and runs `done` (posted) once every connection has closed. Abandon(), after Stop:
// the answers not yet written are dropped, so that an operator client that stopped reading
// cannot hold the end (probe BS1). Destruction without Stop also removes the socket file
// (connections still open are left to the loop).
//
// Errors: Bind returns UnixListener's (kIo, kDenied, kInvalidArgument for a path too long).
// Ownership and threading: owned by the server; everything on the loop's thread; the core
// must outlive it. Bind only after the core's Start `ready` (requests need the federation).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "tools/refusal_tally.h"

namespace boost::asio {
class io_context;
}

namespace las::tools {

class DaemonConnection;
class ServerCore;
class UnixListener;

class OperatorListener {
 public:
  static Result<std::unique_ptr<OperatorListener>> Bind(
      boost::asio::io_context& io, ServerCore& core, const std::string& path,
      std::function<void(const std::string& note)> on_note);
  ~OperatorListener();
  OperatorListener(const OperatorListener&) = delete;
  OperatorListener& operator=(const OperatorListener&) = delete;

  void Stop(std::function<void()> done);
  void Abandon();
  bool has_connections() const { return !connections_.empty(); }
  // Whether a connection holds answers until their changes are on disk.
  bool awaits_the_log() const;
  const std::string& path() const;

 private:
  OperatorListener(boost::asio::io_context& io, ServerCore& core,
                   std::unique_ptr<UnixListener> listener,
                   std::function<void(const std::string&)> on_note);
  void OnConnection(UniqueFd fd);
  void MaybeDone();

  boost::asio::io_context& io_;
  ServerCore& core_;
  std::unique_ptr<UnixListener> listener_;
  std::function<void(const std::string&)> on_note_;
  std::map<uint64_t, std::shared_ptr<DaemonConnection>> connections_;
  RefusalTally refused_connections_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::function<void()> done_;
};

}  // namespace las::tools
