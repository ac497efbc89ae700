// LoopStdioFd: a descriptor of stdin or stdout that the loop may make non-blocking without
// changing the descriptor that other processes hold.
//
// O_NONBLOCK belongs to the open file description, which a dup(2) shares with whoever gave
// Las its stdin or stdout: a shell pipeline's next command, a script's later `cat`, a
// service manager. Left set, their next read or write fails with EAGAIN (or a large write
// comes out short). So a pipe or FIFO is reopened through /proc/self/fd — a description
// of the same pipe that is Las's alone. A socket cannot be reopened: it is dup'ed, and the
// flags it had are put back when this object is destroyed (a process killed by SIGKILL
// cannot put them back; MCP clients give sockets that only Las holds).
//
// Threading: one thread; destroy it after whatever took the descriptor has closed it.
#pragma once

namespace las::tools {

class LoopStdioFd {
 public:
  // `stdio_fd` is STDIN_FILENO (opened for reading) or STDOUT_FILENO (for writing); it
  // must be a pipe, FIFO or socket.
  explicit LoopStdioFd(int stdio_fd);
  ~LoopStdioFd();
  LoopStdioFd(const LoopStdioFd&) = delete;
  LoopStdioFd& operator=(const LoopStdioFd&) = delete;

  // The descriptor, owned by the caller from now on; -1 when none could be had (the
  // caller then falls back to blocking I/O on `stdio_fd` itself).
  int Take();

 private:
  int stdio_fd_;
  int fd_ = -1;
  int shared_flags_ = -1;  // the shared description's flags to put back; -1: not shared
};

// A new open file description of the pipe or FIFO `stdio_fd`, non-blocking and close-on-exec,
// or -1 (a socket, where the open fails with ENXIO; a pipe whose other end no one holds; no
// /proc). STDIN_FILENO is opened for reading, any other for writing.
int ReopenStdioPipe(int stdio_fd);

}  // namespace las::tools
