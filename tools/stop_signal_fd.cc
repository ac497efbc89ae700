#include "tools/stop_signal_fd.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace las::tools {

StopSignalFd::StopSignalFd() {
  sigset_t stop;
  sigset_t previous;
  ::sigemptyset(&stop);
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    // One the process was started ignoring (SIGHUP under nohup) is left ignored: blocked,
    // the kernel would keep it pending for the signalfd instead of discarding it.
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    ::sigaddset(&stop, signal);
  }
  if (::pthread_sigmask(SIG_BLOCK, &stop, &previous) != 0) return;
  fd_ = ::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd_ < 0) (void)::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

StopSignalFd::~StopSignalFd() {
  if (fd_ >= 0) ::close(fd_);
}

int StopSignalFd::Take() {
  if (fd_ < 0) return 0;
  signalfd_siginfo info{};
  ssize_t n;
  do {
    n = ::read(fd_, &info, sizeof info);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof info) ? static_cast<int>(info.ssi_signo) : 0;
}

std::string StopSignalFd::Name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(signal);
  }
}

}  // namespace las::tools
