#include "tools/daemon_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "tools/daemon_bridge.h"
#include "tools/daemon_socket.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/line_reader.h"

namespace las::tools {
std::string ToolCallRequestLine(int id, const std::string& name,
                                const std::string& arguments_json) {
  return transport::MakeRequest(std::to_string(id), "tools/call",
                                "{\"name\":" + transport::QuoteJsonString(name) +
                                    ",\"arguments\":" + arguments_json + "}");
}

Result<std::vector<std::string>> RunDaemonSession(const DaemonSessionRequest& request) {
  auto connection = ConnectToDaemonOf(request.log_dir, request.xdg_runtime_dir);
  if (!connection.ok()) return connection.status();
  const int fd = connection->get();
  std::string out = BridgeHelloLine(request.agent_id) + "\n";
  out += transport::MakeRequest(
             "0", "initialize",
             "{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":" +
                 transport::QuoteJsonString(request.client_name) + ",\"version\":\"0.1.0\"}}") +
         "\n";
  out += transport::MakeNotification("notifications/initialized") + "\n";
  for (const auto& line : request.requests) out += line + "\n";
  if (!SendAll(fd, out)) return IoError("the daemon closed the connection");
  ::shutdown(fd, SHUT_WR);

  std::vector<std::string> responses;
  bool initialized = false;
  bool refused = false;
  transport::LineFramer framer(64 * 1024 * 1024);
  auto take = [&](const transport::LineEvent& event) {
    if (event.kind == transport::LineEvent::Kind::kTooLong) return;
    std::string line(event.bytes);
    if (!initialized) {
      initialized = true;
      auto parsed = transport::ParseMessage(line);
      refused = !parsed.ok() || parsed.message->kind != transport::MessageKind::kResponse ||
                parsed.message->is_error;
      return;
    }
    responses.push_back(std::move(line));
  };
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("reading from the daemon failed");
    if (n == 0) break;
    framer.Feed(std::string_view(buffer, static_cast<size_t>(n)), take);
  }
  framer.Finish(take);
  if (!initialized || refused) return IoError("the daemon refused the session");
  return responses;
}

}  // namespace las::tools
