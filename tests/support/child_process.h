// A real child process with its stdin and stdout on pipes, for tests that need a second
// process (a writer to crash, a writer to follow). Killed and reaped on destruction.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace las::testing {

class ChildProcess {
 public:
  // Starts argv[0] (an absolute path) with argv. Throws std::runtime_error on failure.
  explicit ChildProcess(const std::vector<std::string>& argv);
  // As above, with stdin read from the file at `stdin_path` instead of a pipe (WriteLine
  // and CloseStdin then do nothing useful: there is no pipe).
  ChildProcess(const std::vector<std::string>& argv, const std::string& stdin_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next complete stdout line (without '\n'); nullopt at EOF or after `timeout`.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Every complete line still buffered or readable until EOF (after the child died).
  std::vector<std::string> DrainLines();
  void WriteLine(const std::string& line);
  void CloseStdin();
  // Closes this side's end of the child's stdout: the child's writes fail from then on.
  void CloseStdout();
  void Kill(int signal);
  // Waits for exit; returns the raw wait status.
  int Wait();
  // Waits at most `timeout` for the exit; the raw wait status, or nullopt if it still runs.
  std::optional<int> WaitFor(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }
  // With a file as stdin: how far the child has read it (the file's offset, which this
  // process shares with the child: one open file description); else -1.
  int64_t StdinFileOffset() const;

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdin_file_fd_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

}  // namespace las::testing
