#include "tools/operator_listener.h"

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <utility>

#include "tools/daemon_connection.h"
#include "tools/operator_channel.h"
#include "tools/unix_listener.h"

namespace las::tools {
namespace {

constexpr size_t kMaxOperatorLine = 4 * 1024 * 1024;
constexpr size_t kMaxOperatorConnections = 64;

}  // namespace

Result<std::unique_ptr<OperatorListener>> OperatorListener::Bind(
    boost::asio::io_context& io, ServerCore& core, const std::string& path,
    std::function<void(const std::string& note)> on_note) {
  auto listener = UnixListener::Bind(io, path);
  if (!listener.ok()) return listener.status();
  std::unique_ptr<OperatorListener> self(
      new OperatorListener(io, core, std::move(*listener), std::move(on_note)));
  OperatorListener* raw = self.get();
  raw->listener_->Accept({[raw](UniqueFd fd) { raw->OnConnection(std::move(fd)); },
                          [raw](uid_t uid) {
                            if (raw->on_note_) {
                              raw->on_note_("refused an operator connection from uid " +
                                            std::to_string(uid));
                            }
                          },
                          raw->on_note_, "operator connection"});
  return self;
}

OperatorListener::OperatorListener(boost::asio::io_context& io, ServerCore& core,
                                   std::unique_ptr<UnixListener> listener,
                                   std::function<void(const std::string&)> on_note)
    : io_(io), core_(core), listener_(std::move(listener)), on_note_(std::move(on_note)) {}

OperatorListener::~OperatorListener() {
  listener_->Close();
  listener_->RemoveSocketFile();
}

void OperatorListener::OnConnection(UniqueFd fd) {
  if (stopping_) return;
  if (connections_.size() >= kMaxOperatorConnections) {
    if (refused_connections_.Count() && on_note_) {
      on_note_("too many operator connections (" + std::to_string(kMaxOperatorConnections) +
               "): " + std::to_string(refused_connections_.count()) + " refused so far");
    }
    // Best effort, never blocking: a fresh socket's buffer takes one short line.
    (void)::send(fd.get(), kOperatorBusyLine.data(), kOperatorBusyLine.size(),
                 MSG_DONTWAIT | MSG_NOSIGNAL);
    return;  // `fd` closes here
  }
  const uint64_t id = next_id_++;
  connections_[id] = DaemonConnection::Start(
      io_, std::move(fd), core_, kMaxOperatorLine, ConnectionBudgets{},
      [this, id] {
        connections_.erase(id);
        MaybeDone();
      },
      /*operator_only=*/true);
}

void OperatorListener::Stop(std::function<void()> done) {
  stopping_ = true;
  done_ = std::move(done);
  listener_->Close();
  listener_->RemoveSocketFile();
  for (auto& [id, connection] : connections_) connection->StopReading();
  MaybeDone();
}

const std::string& OperatorListener::path() const { return listener_->path(); }

void OperatorListener::Abandon() {
  // Abandoning a connection may close it (and erase it) later, never synchronously.
  for (auto& [id, connection] : connections_) connection->Abandon();
}

void OperatorListener::MaybeDone() {
  if (stopping_ && connections_.empty() && done_) {
    boost::asio::post(io_, std::exchange(done_, nullptr));
  }
}

bool OperatorListener::awaits_the_log() const {
  for (const auto& [id, connection] : connections_) {
    if (connection->AwaitsTheLog()) return true;
  }
  return false;
}

}  // namespace las::tools
