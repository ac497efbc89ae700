// A raw client on a Las Unix socket (the daemon's clients' socket, or the operator
// socket of a daemon or of `las serve`): lines in, lines out, for tests in which a client
// must misbehave or be watched byte by byte. Failures are test failures (GoogleTest).
//
// Thread safety: none; one test thread uses one client.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/unique_fd.h"

namespace las::testing {

class RawClient {
 public:
  explicit RawClient(UniqueFd fd) : fd_(std::move(fd)) {}
  // Sends `line` and a newline.
  void Send(const std::string& line);
  // The next line; nullopt at EOF or after the limit.
  std::optional<std::string> ReadLine(std::chrono::seconds limit = std::chrono::seconds(60));
  // The bridge hello for `agent` and an initialize; the answer ("" if none came).
  std::string AskToInitialize(const std::string& agent);
  // AskToInitialize, then notifications/initialized; a test failure unless it succeeded.
  void Initialize(const std::string& agent);
  // Sends `data` as it is (no newline added), then waits until the server has read all
  // of it (SIOCOUTQ: what the peer has not read yet).
  void SendRawAndAwaitRead(const std::string& data);
  void Close() { fd_.Reset(); }
  int fd() const { return fd_.get(); }

 private:
  UniqueFd fd_;
  std::string buffer_;
};

// A client connected to the socket at `socket_path` (a test failure, and a client of no
// connection, if it cannot connect).
RawClient ConnectRaw(const std::string& socket_path);

// The operator socket's hello (docs/DAEMON.md), each connection's first line there.
inline constexpr char kOperatorHello[] = R"({"jsonrpc":"2.0","id":0,"method":"las/operator","params":{}})";

// ConnectRaw to the operator socket at `operator_path`, then the hello and its answer (a
// test failure if none came).
RawClient ConnectOperator(const std::string& operator_path);

}  // namespace las::testing
