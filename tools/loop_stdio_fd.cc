#include "tools/loop_stdio_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>

namespace las::tools {
namespace {

bool SameFile(int a, int b) {
  struct stat first {};
  struct stat second {};
  return ::fstat(a, &first) == 0 && ::fstat(b, &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

}  // namespace

int ReopenStdioPipe(int stdio_fd) {
  const std::string path = "/proc/self/fd/" + std::to_string(stdio_fd);
  const int access = stdio_fd == STDIN_FILENO ? O_RDONLY : O_WRONLY;
  // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader.
  const int fd = ::open(path.c_str(), access | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  if (!SameFile(fd, stdio_fd)) {  // replaced under /proc's link: not ours to use
    ::close(fd);
    return -1;
  }
  return fd;
}

LoopStdioFd::LoopStdioFd(int stdio_fd) : stdio_fd_(stdio_fd) {
  fd_ = ReopenStdioPipe(stdio_fd);
  if (fd_ >= 0) return;
  shared_flags_ = ::fcntl(stdio_fd, F_GETFL);
  if (shared_flags_ < 0) return;
  fd_ = ::fcntl(stdio_fd, F_DUPFD_CLOEXEC, 3);
  if (fd_ < 0) shared_flags_ = -1;
}

LoopStdioFd::~LoopStdioFd() {
  if (fd_ >= 0) ::close(fd_);  // never taken
  if (shared_flags_ >= 0) ::fcntl(stdio_fd_, F_SETFL, shared_flags_);
}

int LoopStdioFd::Take() { return std::exchange(fd_, -1); }


}  // namespace las::tools
