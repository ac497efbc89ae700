#include "tools/unstalled_stderr.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "base/note.h"
#include "tools/loop_stdio_fd.h"

namespace las::tools {
namespace {

struct Writer {
  int fd;
  std::chrono::milliseconds patience;
  bool stalled = false;
  uint64_t dropped = 0;
};

// Writes all of `data` unless the pipe stays full for `wait`; what was written.
size_t WriteWithin(int fd, const char* data, size_t size, std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd, data + written, size - written);
    if (n > 0) {
      written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || errno != EAGAIN) break;  // no reader (EPIPE), or worse: nothing to wait for
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    struct pollfd room = {fd, POLLOUT, 0};
    if (::poll(&room, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
  }
  return written;
}

ssize_t WriteLine(void* cookie, const char* data, size_t size) {
  auto* writer = static_cast<Writer*>(cookie);
  if (writer->dropped > 0) {
    const std::string told = NoteName() + ": " + std::to_string(writer->dropped) +
                             " lines of standard error were dropped: it was not read\n";
    if (WriteWithin(writer->fd, told.data(), told.size(), std::chrono::milliseconds(0)) == told.size()) {
      writer->dropped = 0;
      writer->stalled = false;
    }
  }
  const size_t written =
      WriteWithin(writer->fd, data, size, writer->stalled ? std::chrono::milliseconds(0) : writer->patience);
  if (written < size) {
    ++writer->dropped;
    writer->stalled = true;
  } else {
    writer->stalled = false;
  }
  return static_cast<ssize_t>(size);  // taken, written or dropped: stdio must not retry
}

int CloseWriter(void* cookie) {
  auto* writer = static_cast<Writer*>(cookie);
  const int result = ::close(writer->fd);
  delete writer;
  return result;
}

}  // namespace

FILE* OpenUnstalledWriter(int fd, std::chrono::milliseconds patience) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return nullptr;
  auto* writer = new Writer{fd, patience};
  cookie_io_functions_t functions = {};
  functions.write = WriteLine;
  functions.close = CloseWriter;
  FILE* stream = ::fopencookie(writer, "w", functions);
  if (stream == nullptr) {
    delete writer;
    return nullptr;
  }
  // One write per line: a note goes whole or waits; a line longer than the buffer in parts.
  ::setvbuf(stream, nullptr, _IOLBF, 16 * 1024);
  return stream;
}

void KeepStderrFromStalling(std::chrono::milliseconds patience) {
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  const int own = ReopenStdioPipe(STDERR_FILENO);
  if (own < 0) return;  // no reader holds the pipe: a write fails at once (EPIPE), never waits
  FILE* stream = OpenUnstalledWriter(own, patience);
  if (stream == nullptr) {
    ::close(own);
    return;
  }
  std::fflush(stderr);
  stderr = stream;  // glibc: the standard streams are variables a program may set
}

}  // namespace las::tools
