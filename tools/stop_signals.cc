#include "tools/stop_signals.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <cerrno>
#include <cstring>
#include <utility>

namespace las::tools {
namespace {

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

// The handler's state: only what is async-signal-safe to touch.
std::atomic<int> signals_seen{0};
pid_t owner_pid = 0;  // a child between fork and exec runs this handler too
int signal_pipe_write = -1;
char third_line[512];
size_t third_line_size = 0;
constexpr int kMaxUnlinks = 4;
char unlink_paths[kMaxUnlinks][108];
std::atomic<int> unlink_count{0};

extern "C" void OnStopSignal(int signal) {
  const int saved_errno = errno;
  if (::getpid() != owner_pid) {  // a child not yet exec'd: the default action, as after exec
    struct sigaction default_action = {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(signal, &default_action, nullptr);
    ::raise(signal);
    errno = saved_errno;
    return;
  }
  if (signals_seen.fetch_add(1) + 1 >= 3) {
    for (int i = 0; i < unlink_count.load(); ++i) ::unlink(unlink_paths[i]);
    // The last way out must not wait for a stderr nobody reads (probe HB1): the line is
    // written only when it cannot block (a pipe with room for it; a socket that takes it).
    struct pollfd err = {STDERR_FILENO, POLLOUT, 0};
    if (::poll(&err, 1, 0) == 1 && (err.revents & POLLOUT) != 0) {
      (void)!::write(STDERR_FILENO, third_line, third_line_size);
    }
    ::_exit(kExitAtThirdSignal);
  }
  const unsigned char byte = static_cast<unsigned char>(signal);
  (void)!::write(signal_pipe_write, &byte, 1);  // the pipe never fills: at most 2 bytes
  errno = saved_errno;
}

}  // namespace

struct StopSignals::Impl {
  explicit Impl(boost::asio::io_context& io) : reader(io) {}
  boost::asio::posix::stream_descriptor reader;
  unsigned char signal = 0;
  struct sigaction previous[3] = {};
};

StopSignals::StopSignals(boost::asio::io_context& io, const std::string& line)
    : impl_(std::make_unique<Impl>(io)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    fds[0] = fds[1] = -1;  // no loop-side wake-up: the third signal still exits
  }
  if (fds[0] >= 0) impl_->reader.assign(fds[0]);
  signal_pipe_write = fds[1];
  third_line_size = std::min(line.size(), sizeof third_line);
  std::memcpy(third_line, line.data(), third_line_size);
  signals_seen = 0;
  unlink_count = 0;
  owner_pid = ::getpid();
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (size_t i = 0; i < 3; ++i) {
    // A signal its starter ignores (SIGHUP under nohup) stays ignored: it is not a stop.
    ::sigaction(kStopSignals[i], nullptr, &impl_->previous[i]);
    if (impl_->previous[i].sa_handler != SIG_IGN) ::sigaction(kStopSignals[i], &action, nullptr);
  }
}

StopSignals::~StopSignals() {
  unlink_count = 0;
  for (size_t i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &impl_->previous[i], nullptr);
  if (signal_pipe_write >= 0) ::close(std::exchange(signal_pipe_write, -1));
}

void StopSignals::AsyncWait(std::function<void(int signal)> on_signal) {
  if (!impl_->reader.is_open()) return;
  boost::asio::async_read(
      impl_->reader, boost::asio::buffer(&impl_->signal, 1),
      [this, on_signal = std::move(on_signal)](const boost::system::error_code& error, size_t) {
        if (error) return;  // cancelled
        on_signal(impl_->signal);
      });
}

void StopSignals::UnlinkAtThirdSignal(const std::string& path) {
  const int at = unlink_count.load();
  if (at >= kMaxUnlinks || path.size() >= sizeof unlink_paths[0]) return;
  std::memcpy(unlink_paths[at], path.c_str(), path.size() + 1);
  unlink_count = at + 1;  // published after the path is whole
}

std::vector<int> StopSignals::IgnoredStops() const {
  std::vector<int> ignored;
  for (size_t i = 0; i < 3; ++i) {
    if (kStopSignals[i] != SIGHUP && impl_->previous[i].sa_handler == SIG_IGN) {
      ignored.push_back(kStopSignals[i]);
    }
  }
  return ignored;
}

void StopSignals::Cancel() {
  boost::system::error_code ignored;
  impl_->reader.cancel(ignored);
}

std::string StopSignals::ThirdSignalLine(const std::string& prefix) {
  return prefix +
         "third signal: exiting now, without waiting for the end to be recorded (sessions "
         "still open are recorded `lost` by the next start)\n";
}

}  // namespace las::tools
