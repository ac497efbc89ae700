#include "tests/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace las::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) : ChildProcess(argv, "") {}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& stdin_path) {
  int in[2];
  int out[2];
  if (stdin_path.empty() ? ::pipe2(in, O_CLOEXEC) != 0
                         : (in[0] = ::open(stdin_path.c_str(), O_RDONLY | O_CLOEXEC)) < 0) {
    throw std::runtime_error("cannot make the child's stdin");
  }
  if (!stdin_path.empty()) in[1] = -1;
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (stdin_path.empty()) {
    ::close(in[0]);
  } else {
    stdin_file_fd_ = in[0];  // shares the child's offset in the file
  }
  ::close(out[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(rc));
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
}

ChildProcess::~ChildProcess() {
  if (!reaped_) {
    Kill(SIGKILL);
    Wait();
  }
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (stdin_file_fd_ >= 0) ::close(stdin_file_fd_);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

int64_t ChildProcess::StdinFileOffset() const {
  return stdin_file_fd_ < 0 ? -1 : static_cast<int64_t>(::lseek(stdin_file_fd_, 0, SEEK_CUR));
}

std::optional<std::string> ChildProcess::ReadLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd pfd{stdout_fd_, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;  // EOF: a partial last line is not a line
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::vector<std::string> ChildProcess::DrainLines() {
  std::vector<std::string> lines;
  while (auto line = ReadLine(std::chrono::seconds(10))) lines.push_back(*line);
  return lines;
}

void ChildProcess::WriteLine(const std::string& line) {
  std::string data = line + "\n";
  if (::write(stdin_fd_, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
    throw std::runtime_error("write to child failed");
  }
}

void ChildProcess::CloseStdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

void ChildProcess::CloseStdout() {
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
}

void ChildProcess::Kill(int signal) {
  if (!reaped_) ::kill(pid_, signal);
}

std::optional<int> ChildProcess::WaitFor(std::chrono::milliseconds timeout) {
  if (!reaped_) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd < 0) throw std::runtime_error(std::string("pidfd_open: ") + std::strerror(errno));
    pollfd pfd{pidfd, POLLIN, 0};
    int ready;
    while ((ready = ::poll(&pfd, 1, static_cast<int>(timeout.count()))) < 0 && errno == EINTR) {
    }
    ::close(pidfd);
    if (ready <= 0) return std::nullopt;
  }
  return Wait();
}

int ChildProcess::Wait() {
  if (!reaped_) {
    while (::waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  return wait_status_;
}

}  // namespace las::testing
