#include "tools/daemon_bridge.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "transport/child_process.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

// The client's requests the daemon has not answered yet, by raw id. A daemon that closes
// the connection with some left stopped or died; one that answered all ended the session.
class Unanswered {
 public:
  void FromClient(std::string_view bytes) {
    client_lines_.Feed(bytes, [this](const transport::LineEvent& e) { OnClientLine(e); });
  }
  void ClientEnded() {
    client_lines_.Finish([this](const transport::LineEvent& e) { OnClientLine(e); });
  }
  void FromDaemon(std::string_view bytes) {
    daemon_lines_.Feed(bytes, [this](const transport::LineEvent& e) {
      if (e.kind != transport::LineEvent::Kind::kLine) return;
      auto id = transport::SalvageTopLevelMember(e.bytes, "id", transport::kDefaultMaxDepth);
      if (id) Answered(*id);
    });
  }
  size_t count() const {
    size_t n = 0;
    for (const auto& [id, times] : waiting_) n += times;
    return n;
  }

 private:
  // One request `id` is owed no more answers.
  void Answered(const std::string& id) {
    if (auto it = waiting_.find(id); it != waiting_.end() && --it->second == 0) waiting_.erase(it);
  }

  void OnClientLine(const transport::LineEvent& e) {
    if (e.kind != transport::LineEvent::Kind::kLine) return;  // answered by salvage, if at all
    transport::ParsedLine parsed = transport::ParseMessage(e.bytes, transport::JsonRpcLimits{});
    if (!parsed.ok()) return;
    const transport::Message& message = *parsed.message;
    if (message.kind == transport::MessageKind::kRequest) ++waiting_[message.id];
    // MCP: a cancelled request gets no answer; the daemon owes none for it.
    if (message.kind == transport::MessageKind::kNotification &&
        message.method == "notifications/cancelled") {
      if (auto id = transport::CancelledRequestId(message.params)) Answered(*id);
    }
  }

  static constexpr size_t kMaxLine = transport::JsonRpcLimits{}.max_line_bytes;
  transport::LineFramer client_lines_{kMaxLine};
  transport::LineFramer daemon_lines_{kMaxLine};
  std::map<std::string, size_t> waiting_;
};

// Writes everything; false when the other end is gone.
bool WriteAll(int fd, const char* data, size_t size, bool socket) {
  size_t written = 0;
  while (written < size) {
    ssize_t n = socket ? ::send(fd, data + written, size - written, MSG_NOSIGNAL)
                       : ::write(fd, data + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      (void)::poll(&pfd, 1, -1);
      continue;
    }
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string BridgeHelloLine(const std::string& agent_id) {
  std::string params = "{";
  if (!agent_id.empty()) params += "\"agentId\":" + transport::QuoteJsonString(agent_id);
  params += "}";
  return transport::MakeNotification("las/bridge", params);
}

Status RunBridge(UniqueFd connection, const std::string& agent_id) {
  transport::IgnoreWriteSignals();
  const int sock = connection.get();
  const std::string hello = BridgeHelloLine(agent_id) + "\n";
  if (!WriteAll(sock, hello.data(), hello.size(), true)) {
    return IoError("the daemon closed the connection");
  }
  bool stdin_open = true;
  bool refused_input = false;
  Unanswered unanswered;
  char buffer[1 << 16];
  while (true) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    const int count = ::poll(fds, stdin_open ? 2 : 1, -1);
    if (count < 0) {
      if (errno == EINTR) continue;
      return IoError(std::string("poll: ") + std::strerror(errno));
    }
    if (fds[0].revents != 0) {
      ssize_t n = ::read(sock, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        if (stdin_open || refused_input) return IoError("the daemon closed the connection");
        if (const size_t left = unanswered.count(); left != 0) {
          return IoError("the daemon closed the connection with " + std::to_string(left) +
                         " request(s) unanswered (it stopped or died)");
        }
        return Status::Ok();
      }
      unanswered.FromDaemon(std::string_view(buffer, static_cast<size_t>(n)));
      if (!WriteAll(STDOUT_FILENO, buffer, static_cast<size_t>(n), false)) {
        // The client is gone: closing the connection tells the daemon, which runs no
        // further request of it and finishes and logs the calls in flight.
        return IoError("writing to standard output failed: answers were not delivered");
      }
    }
    if (stdin_open && fds[1].revents != 0) {
      ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        stdin_open = false;
        unanswered.ClientEnded();
        ::shutdown(sock, SHUT_WR);
        continue;
      }
      unanswered.FromClient(std::string_view(buffer, static_cast<size_t>(n)));
      if (!WriteAll(sock, buffer, static_cast<size_t>(n), true)) {
        // The daemon stopped reading (it is shutting down): forward no more, but deliver
        // the answers it still sends for calls already in flight.
        stdin_open = false;
        refused_input = true;
      }
    }
  }
}

}  // namespace las::tools
