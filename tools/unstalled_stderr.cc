#include "tools/unstalled_stderr.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/note.h"
#include "tools/loop_stdio_fd.h"

namespace las::tools {
namespace {

struct Writer {
  int fd;
  std::chrono::milliseconds patience;
  bool stalled = false;        // a line did not fit in time: later ones do not wait
  uint64_t dropped = 0;        // lines dropped since the last notice that went out
  bool mid_line = false;       // what went out last ends inside a line (stdio's pieces)
  bool cut = false;            // and that line will not be finished: end it first
  bool open_dropped = false;   // the line being dropped has not ended yet (counted already)
};

Writer* the_writer = nullptr;  // for the notice at exit (KeepStderrFromStalling's)

// Writes all of `data` unless the pipe stays full for `wait`; what was written.
size_t WriteWithin(int fd, std::string_view data, std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
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

uint64_t Lines(std::string_view text) { return static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n')); }

// What must go out before the next line: the end of a cut line, and the count of lines
// dropped since the last notice.
std::string Owed(const Writer& writer) {
  std::string owed = writer.cut ? "\n" : "";
  if (writer.dropped > 0) {
    owed += NoteName() + ": " + std::to_string(writer.dropped) +
            " lines of standard error were dropped: it was not read\n";
  }
  return owed;
}

// Writes what is owed and `text`, waiting up to `wait`; true when all of it went. The
// notice and the line go in one write, so that a notice alone never ends a stall (probe
// HF2: it fit where the line did not, and each line waited again). A line is counted once
// however many pieces stdio hands it in, and what is left of a line cut or dropped is
// dropped with it (probe HF3: a cut line had the notice glued to it, and each piece of a
// long line was counted).
bool Emit(Writer& writer, std::string_view text, std::chrono::milliseconds wait) {
  if (writer.open_dropped) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) return false;  // still inside the dropped line
    text.remove_prefix(end + 1);
    writer.open_dropped = false;
  }
  std::string out = Owed(writer);
  const size_t owed = out.size();
  out.append(text);
  const size_t written = WriteWithin(writer.fd, out, wait);
  if (written == out.size()) {
    writer = Writer{writer.fd, writer.patience};
    writer.mid_line = !out.empty() && out.back() != '\n';
    return true;
  }
  writer.stalled = true;
  if (written >= owed) writer.dropped = 0;  // the notice went out
  // What went out last ends inside a line that will not be finished (probe HH3: a piece of
  // a long line written whole, the next dropped, had the notice glued to it).
  writer.cut = written > 0 ? out[written - 1] != '\n' : writer.cut || writer.mid_line;
  writer.mid_line = false;
  const std::string_view unsent = text.substr(written > owed ? written - owed : 0);
  if (!unsent.empty()) {
    // Every line the unsent part touches is lost, but one whose text all went and only its
    // newline did not (probe HJ5): the cut's newline ends it.
    writer.dropped += Lines(unsent) + (unsent.ends_with('\n') ? 0 : 1) - (unsent.front() == '\n' ? 1 : 0);
    writer.open_dropped = !unsent.ends_with('\n');
  }
  return false;
}

ssize_t WriteLine(void* cookie, const char* data, size_t size) {
  auto* writer = static_cast<Writer*>(cookie);
  Emit(*writer, std::string_view(data, size), writer->stalled ? std::chrono::milliseconds(0) : writer->patience);
  return static_cast<ssize_t>(size);  // taken, written or dropped: stdio must not retry
}

int CloseWriter(void* cookie) {
  auto* writer = static_cast<Writer*>(cookie);
  const int result = ::close(writer->fd);
  delete writer;
  return result;
}

// At exit: the count of lines dropped since the last notice, if the reader takes it in time
// (probe HF1: the lines dropped after the last notice were never told).
void TellDroppedAtExit() {
  if (the_writer == nullptr) return;
  ::flockfile(stderr);  // as every stdio call holds it around WriteLine
  std::fflush(stderr);
  the_writer->open_dropped = false;  // no more of it will come
  Emit(*the_writer, "", the_writer->patience);
  ::funlockfile(stderr);
}

FILE* OpenWriter(int fd, std::chrono::milliseconds patience, Writer** made) {
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
  // One write per line: a note goes whole or waits; a line longer than stdio's buffer
  // (8 KiB) in parts.
  ::setvbuf(stream, nullptr, _IOLBF, 16 * 1024);
  if (made != nullptr) *made = writer;
  return stream;
}

}  // namespace

FILE* OpenUnstalledWriter(int fd, std::chrono::milliseconds patience) {
  return OpenWriter(fd, patience, nullptr);
}

void KeepStderrFromStalling(std::chrono::milliseconds patience) {
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  const int own = ReopenStdioPipe(STDERR_FILENO);
  if (own < 0) return;  // no reader holds the pipe: a write fails at once (EPIPE), never waits
  Writer* writer = nullptr;
  FILE* stream = OpenWriter(own, patience, &writer);
  if (stream == nullptr) {
    ::close(own);
    return;
  }
  std::fflush(stderr);
  stderr = stream;  // glibc: the standard streams are variables a program may set
  the_writer = writer;
  std::atexit(TellDroppedAtExit);
}

}  // namespace las::tools
