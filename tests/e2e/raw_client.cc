#include "tests/e2e/raw_client.h"

#include <gtest/gtest.h>

#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/processes.h"
#include "tools/daemon_bridge.h"
#include "tools/daemon_socket.h"

namespace las::testing {

void RawClient::Send(const std::string& line) {
  const std::string data = line + "\n";
  ASSERT_EQ(::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(data.size()));
}

std::optional<std::string> RawClient::ReadLine(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd pfd{fd_.get(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    ssize_t n = ::read(fd_.get(), chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::string RawClient::AskToInitialize(const std::string& agent) {
  Send(tools::BridgeHelloLine(agent));
  Send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})");
  return ReadLine().value_or("");
}

void RawClient::Initialize(const std::string& agent) {
  const std::string answer = AskToInitialize(agent);
  Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_NE(answer.find("\"result\""), std::string::npos) << answer;
}

void RawClient::SendRawAndAwaitRead(const std::string& data) {
  ASSERT_EQ(::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(data.size()));
  ASSERT_TRUE(AwaitCondition([&] {
    int unread = -1;
    return ::ioctl(fd_.get(), SIOCOUTQ, &unread) == 0 && unread == 0;
  }));
}

RawClient ConnectRaw(const std::string& socket_path) {
  auto fd = tools::ConnectToDaemon(socket_path);
  EXPECT_TRUE(fd.ok()) << fd.status().ToString();
  return RawClient(fd.ok() ? std::move(*fd) : UniqueFd());
}

RawClient ConnectOperator(const std::string& operator_path) {
  RawClient client = ConnectRaw(operator_path);
  client.Send(kOperatorHello);
  EXPECT_TRUE(client.ReadLine().has_value()) << "the operator hello was not answered";
  return client;
}

}  // namespace las::testing
