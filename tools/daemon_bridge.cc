#include "tools/daemon_bridge.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <functional>
#include <climits>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "tools/mcp_endpoint.h"
#include "tools/pending_bytes.h"
#include "tools/stop_signal_fd.h"
#include "transport/child_process.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

// The client's requests the daemon has not answered yet, by transport::RequestIdKey. A
// daemon that closes the connection with some left stopped or died; one that answered all
// ended the session.
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
      // An answer longer than a client's line bound is still one (a tools/list of many
      // surfaces): Las writes its id first (probe AS1: it was counted unanswered).
      if (e.kind != transport::LineEvent::Kind::kLine &&
          e.kind != transport::LineEvent::Kind::kTooLong) {
        return;
      }
      auto id = transport::SalvageTopLevelMember(e.bytes, "id", transport::kDefaultMaxDepth);
      if (id) Answered(transport::RequestIdKey(*id));
    });
  }
  size_t count() const {
    size_t n = 0;
    for (const auto& [id, times] : waiting_) n += times;
    return n;
  }

 private:
  // One request `id` is owed no more answers. While the bridge is part-way through a
  // client line, an answer for an id not counted may be that line's: the daemon answers a
  // line it cuts as too large while the bridge still forwards the rest (probe CN3). It is
  // kept for that line only.
  void Answered(const std::string& id) {
    auto it = waiting_.find(id);
    if (it == waiting_.end()) {
      if (client_lines_.buffered_bytes() != 0) ++answered_early_[id];
    } else if (--it->second == 0) {
      waiting_.erase(it);
    }
  }

  void OnClientLine(const transport::LineEvent& e) {
    // An early answer belongs to the line in progress when it came: this one, or none.
    std::map<std::string, size_t> answered_early = std::exchange(answered_early_, {});
    // A last line without a newline is served as a line too (probe GT3); an over-long one
    // is answered by salvage, if at all.
    if (e.kind != transport::LineEvent::Kind::kLine && e.kind != transport::LineEvent::Kind::kPartialAtEof) {
      return;
    }
    // The endpoint's limits: a request whose id is too long is not answered, so it is not
    // counted.
    // As the endpoint reads it: a byte order mark first is ignored (probe AI5).
    transport::ParsedLine parsed = transport::ParseMessage(
        transport::WithoutByteOrderMark(e.bytes),
        transport::JsonRpcLimits{.max_id_bytes = kMaxRequestIdBytes});
    if (!parsed.ok()) return;
    const transport::Message& message = *parsed.message;
    if (message.kind == transport::MessageKind::kRequest) {
      const std::string key = transport::RequestIdKey(message.id);
      if (answered_early.count(key) == 0) ++waiting_[key];
    }
    // MCP: a cancelled request gets no answer; the daemon owes none for it (nor for any
    // other request in flight under the same id: the cancel names them all).
    if (message.kind == transport::MessageKind::kNotification &&
        message.method == "notifications/cancelled") {
      if (auto id = transport::CancelledRequestId(message.params)) {
        waiting_.erase(transport::RequestIdKey(*id));
      }
    }
  }

  static constexpr size_t kMaxLine = transport::JsonRpcLimits{}.max_line_bytes;
  transport::LineFramer client_lines_{kMaxLine};
  transport::LineFramer daemon_lines_{kMaxLine};
  std::map<std::string, size_t> waiting_;
  std::map<std::string, size_t> answered_early_;  // answers before their request was read
};

// Ok (n > 0 bytes moved, or nothing to do now), or false when the other end is gone.
bool SendSome(int sock, PendingBytes& pending) {
  const std::string_view data = pending.view();
  const ssize_t n = ::send(sock, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n > 0) pending.Consume(static_cast<size_t>(n));
  return n > 0 || errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK;
}

// stdout may be a pipe, a socket, a file or a terminal, whose flags the bridge does not
// own; after POLLOUT a write of at most PIPE_BUF bytes does not block on a pipe.
bool WriteSome(int fd, PendingBytes& pending) {
  const std::string_view data = pending.view();
  const ssize_t n = ::write(fd, data.data(), std::min<size_t>(data.size(), PIPE_BUF));
  if (n > 0) pending.Consume(static_cast<size_t>(n));
  return n > 0 || errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK;
}

Status ClientGone() {
  return IoError("writing to standard output failed: answers were not delivered");
}

// Stdin ended and stdout has no reader: Ok when nothing was owed to the client.
Status ReaderGone(size_t unanswered) {
  if (unanswered == 0) return Status::Ok();
  return IoError("standard input ended and standard output has no reader, with " +
                 std::to_string(unanswered) +
                 " request(s) unanswered: the daemon finishes and logs the calls, but their "
                 "answers cannot be delivered");
}

// A stop signal: what the daemon already sent goes to stdout as far as both take it without
// waiting (the signal must end the bridge even when the client reads nothing); then the
// connection closes with the bridge's return. Ok when nothing owed to the client was lost.
Status StopOnSignal(int signal, int sock, Unanswered& unanswered, PendingBytes& to_client,
                    const std::function<void(const std::string&)>& on_note,
                    bool daemon_closed = false) {
  if (on_note) {
    on_note(StopSignalFd::Name(signal) +
            (daemon_closed ? ": the daemon had closed the connection; the answers standard "
                             "output does not take now are dropped"
                           : ": closing the connection to the daemon (it finishes and logs "
                             "the calls in flight)"));
  }
  char buffer[1 << 16];
  while (true) {
    while (!to_client.empty()) {
      pollfd out{STDOUT_FILENO, POLLOUT, 0};
      if (::poll(&out, 1, 0) != 1 || (out.revents & POLLOUT) == 0 ||
          !WriteSome(STDOUT_FILENO, to_client)) {
        break;
      }
    }
    if (!to_client.empty()) break;  // stdout takes no more now: read no more either
    const ssize_t n = ::recv(sock, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n <= 0) break;
    unanswered.FromDaemon(std::string_view(buffer, static_cast<size_t>(n)));
    to_client.Add(buffer, static_cast<size_t>(n));
  }
  const size_t left = unanswered.count();
  if (left == 0 && to_client.empty()) return Status::Ok();
  return IoError(StopSignalFd::Name(signal) + " with " + std::to_string(left) +
                 " request(s) unanswered" +
                 (to_client.empty() ? "" : " and answers not written to standard output") +
                 (daemon_closed ? ": the daemon had closed the connection; those answers were "
                                  "not delivered"
                                : ": the daemon finishes and logs the calls, but their answers "
                                  "were not delivered"));
}

}  // namespace

std::string BridgeHelloLine(const std::string& agent_id, bool waive_implicit_root) {
  std::string params = "{";
  if (!agent_id.empty()) params += "\"agentId\":" + transport::QuoteJsonString(agent_id);
  if (waive_implicit_root) {
    params += std::string(params.size() > 1 ? "," : "") + "\"defaultAgentGrant\":\"none\"";
  }
  params += "}";
  return transport::MakeNotification("las/bridge", params);
}

Status RunBridge(UniqueFd connection, const std::string& agent_id, bool waive_implicit_root,
                 const std::function<void(const std::string& note)>& on_note) {
  transport::IgnoreWriteSignals();
  StopSignalFd signals;  // a stop signal ends the bridge cleanly (probe AA3)
  const int sock = connection.get();
  bool stdin_open = true;
  bool write_half_open = true;
  bool refused_input = false;
  bool heard_from_daemon = false;  // a byte of it: a daemon at its connection limit sends none
  Unanswered unanswered;
  PendingBytes to_daemon;
  PendingBytes to_client;
  const std::string hello = BridgeHelloLine(agent_id, waive_implicit_root) + "\n";
  to_daemon.Add(hello.data(), hello.size());
  char buffer[1 << 16];
  while (true) {
    // Both directions at once: a client that writes many requests before it reads any
    // answer must not find the bridge blocked writing while the daemon waits for it to
    // read (the daemon stops reading a connection whose answers back up).
    const auto sock_events = static_cast<short>((to_client.full() ? 0 : POLLIN) |
                                                (to_daemon.empty() ? 0 : POLLOUT));
    // A descriptor with nothing asked of it is left out: poll would still report its
    // hang-up at once, and the loop would spin until stdout drains. Once stdin has ended,
    // stdout is watched for its reader going (POLLERR on a pipe, POLLHUP on a socket),
    // which ends the bridge at once.
    const bool watch_reader = !stdin_open && to_client.empty();
    pollfd fds[4] = {
        {sock_events != 0 ? sock : -1, sock_events, 0},
        {stdin_open && !to_daemon.full() ? STDIN_FILENO : -1, POLLIN, 0},
        {to_client.empty() && !watch_reader ? -1 : STDOUT_FILENO,
         static_cast<short>(to_client.empty() ? 0 : POLLOUT), 0},
        {signals.fd(), POLLIN, 0},
    };
    if (::poll(fds, 4, -1) < 0) {
      if (errno == EINTR) continue;
      return IoError(std::string("poll: ") + std::strerror(errno));
    }
    if ((fds[3].revents & POLLIN) != 0) {
      if (const int signal = signals.Take(); signal != 0) {
        return StopOnSignal(signal, sock, unanswered, to_client, on_note);
      }
    }
    if (watch_reader && (fds[2].revents & (POLLERR | POLLHUP)) != 0) {
      // The client has gone for good (stdin ended, no one reads stdout): waiting for the
      // answers would hold this process until the slowest call ends, for no one (probe
      // IC1). Closing the connection tells the daemon, which finishes and logs the calls
      // in flight and records the session `disconnect`.
      return ReaderGone(unanswered.count());
    }
    if ((fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0 &&
        !WriteSome(STDOUT_FILENO, to_client)) {
      // The client is gone: closing the connection tells the daemon, which runs no
      // further request of it and finishes and logs the calls in flight.
      return ClientGone();
    }
    if ((fds[0].revents & (POLLOUT | POLLERR)) != 0 && !to_daemon.empty() &&
        !SendSome(sock, to_daemon)) {
      // The daemon stopped reading (it is shutting down): forward no more, but deliver
      // the answers it still sends for calls already in flight.
      stdin_open = false;
      refused_input = true;
      to_daemon.Clear();
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !to_client.full()) {
      const ssize_t n = ::read(sock, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        // What the daemon sent goes to the client as it reads it; a stop signal still ends
        // the bridge meanwhile (probe CK1: a client reading nothing kept it forever).
        while (!to_client.empty()) {
          pollfd drain[2] = {{STDOUT_FILENO, POLLOUT, 0}, {signals.fd(), POLLIN, 0}};
          if (::poll(drain, 2, -1) < 0 && errno != EINTR) {
            return IoError(std::string("poll: ") + std::strerror(errno));
          }
          if ((drain[1].revents & POLLIN) != 0) {
            if (const int signal = signals.Take(); signal != 0) {
              return StopOnSignal(signal, sock, unanswered, to_client, on_note, true);
            }
          }
          if ((drain[0].revents & (POLLOUT | POLLERR | POLLHUP)) != 0 &&
              !WriteSome(STDOUT_FILENO, to_client)) {
            return ClientGone();
          }
        }
        if (!heard_from_daemon && (stdin_open || refused_input || unanswered.count() != 0)) {
          return IoError("the daemon closed the connection before answering anything (it may be "
                         "at its connection limit or out of file descriptors: its stderr says "
                         "so; or it was stopping)");
        }
        // Whether the client was owed anything is what it needs to know next (probe FQ1:
        // "closed the connection" alone read the same with every request answered).
        const size_t left = unanswered.count();
        if (left != 0) {
          return IoError("the daemon closed the connection with " + std::to_string(left) +
                         " request(s) unanswered (it stopped or died, or dropped a line too "
                         "large to answer whose id it could not read): whether each ran, las "
                         "inspect calls says for a tool call, las inspect state, messages or "
                         "handles for a las__ tool's change, and the log for both");
        }
        if (stdin_open || refused_input) {
          return IoError("the daemon closed the connection (it stopped or died) with every "
                         "request sent so far answered; later ones cannot reach it");
        }
        return Status::Ok();
      }
      heard_from_daemon = true;
      unanswered.FromDaemon(std::string_view(buffer, static_cast<size_t>(n)));
      to_client.Add(buffer, static_cast<size_t>(n));
    }
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        stdin_open = false;
        unanswered.ClientEnded();
      } else {
        unanswered.FromClient(std::string_view(buffer, static_cast<size_t>(n)));
        to_daemon.Add(buffer, static_cast<size_t>(n));
      }
    }
    if (!stdin_open && write_half_open && to_daemon.empty()) {
      write_half_open = false;
      ::shutdown(sock, SHUT_WR);  // everything the client sent is with the daemon
    }
  }
}

}  // namespace las::tools
