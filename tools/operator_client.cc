#include "tools/operator_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>

#include "tools/daemon_socket.h"
#include "tools/operator_channel.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

using Json = nlohmann::json;

Code CodeFromName(const std::string& name) {
  for (int i = 1; i <= static_cast<int>(Code::kNotALog); ++i) {
    if (CodeName(static_cast<Code>(i)) == name) return static_cast<Code>(i);
  }
  return Code::kIo;
}

// The result of one answer line, or the status it carries.
Result<std::string> ResultOf(const std::string& line) {
  const auto answer = Json::parse(line, nullptr, false);
  if (!answer.is_object()) return IoError("the server's answer is not JSON");
  if (auto error = answer.find("error"); error != answer.end() && error->is_object()) {
    std::string code = "io";
    if (auto data = error->find("data"); data != error->end() && data->is_object()) {
      code = data->value("status", code);
    }
    return Status(CodeFromName(code), error->value("message", std::string("refused")));
  }
  auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) {
    return IoError("the server's answer has no result");
  }
  return result->dump();
}

// One connection's exchange: the hello and the request sent, every answer line read until
// the server closes (or resets) the connection.
struct Exchange {
  bool connected = false;
  Status status;                   // connect failure, or a failure after connecting (timeout)
  std::vector<std::string> lines;  // the answer lines, in order
};

Exchange Talk(const std::string& path, const std::string& out, int64_t timeout_ms) {
  Exchange exchange;
  auto connection = ConnectToDaemon(path);
  if (!connection.ok()) {
    exchange.status = connection.status();
    return exchange;
  }
  exchange.connected = true;
  const int fd = connection->get();
  // A server that refuses the connection may have closed it already: its refusal is read
  // all the same.
  if (SendAll(fd, out)) ::shutdown(fd, SHUT_WR);
  transport::LineFramer framer(16 * 1024 * 1024);
  auto take = [&](const transport::LineEvent& event) {
    if (event.kind != transport::LineEvent::Kind::kTooLong) exchange.lines.emplace_back(event.bytes);
  };
  char buffer[1 << 14];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd readable{fd, POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&readable, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      exchange.status = IoError("the server did not answer within " + std::to_string(timeout_ms / 1000) +
                                " s (stopped, or overloaded?); the change may still be made: check "
                                "before retrying");
      return exchange;
    }
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != ECONNRESET) {
      exchange.status = IoError("reading from the server failed");
      return exchange;
    }
    if (n <= 0) break;  // closed, or reset after what it wrote was read
    framer.Feed(std::string_view(buffer, static_cast<size_t>(n)), take);
  }
  framer.Finish(take);
  return exchange;
}

// The refusal an operator socket at its connection limit writes before reading anything.
bool IsBusyRefusal(const Exchange& exchange) {
  if (exchange.lines.empty()) return false;
  const auto answer = Json::parse(exchange.lines.front(), nullptr, false);
  if (!answer.is_object()) return false;
  const auto error = answer.find("error");
  if (error == answer.end() || !error->is_object()) return false;
  const auto data = error->find("data");
  return data != error->end() && data->is_object() && data->value("reason", "") == kOperatorBusy;
}

}  // namespace

Result<std::string> SendOperatorRequest(const OperatorRequest& request, bool* reached) {
  if (reached != nullptr) *reached = false;
  auto socket = DaemonSocketFor(request.log_dir, request.xdg_runtime_dir, /*create=*/false);
  if (!socket.ok()) return socket.status();
  const Json params = Json::parse(request.params_json, nullptr, false);
  if (!params.is_object()) return InvalidArgument("operator parameters are a JSON object");
  std::string out =
      Json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", kOperatorHello}, {"params", Json::object()}}
          .dump() +
      "\n";
  out += Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", request.method}, {"params", params}}
             .dump() +
         "\n";
  // The operator-only socket first (a daemon's or an embedded server's: clients cannot
  // crowd it), then the daemon's clients' socket — also when the operator socket is at
  // its connection limit, which it says before reading anything; when neither answers,
  // the clients' socket's failure is the one reported.
  Exchange exchange = Talk(socket->operator_path, out, request.timeout_ms);
  const bool operator_busy = exchange.connected && IsBusyRefusal(exchange);
  if (!exchange.connected || operator_busy) {
    Exchange clients = Talk(socket->path, out, request.timeout_ms);
    if (clients.connected || !operator_busy) {
      exchange = std::move(clients);
    }
  }
  if (!exchange.connected) return exchange.status;
  if (reached != nullptr) *reached = true;
  if (IsBusyRefusal(exchange)) {
    return Locked("the server's operator socket is at its connection limit and it has no other; "
                  "nothing was changed: try again");
  }
  if (!exchange.status.ok()) return exchange.status;
  if (exchange.lines.size() != 2) {
    return IoError("the server closed the connection without answering (it may be at its "
                   "connection limit, out of file descriptors, or stopping); the change may "
                   "still be made: check before retrying");
  }
  auto hello = ResultOf(exchange.lines[0]);
  if (!hello.ok()) return hello.status();
  return ResultOf(exchange.lines[1]);
}

}  // namespace las::tools
