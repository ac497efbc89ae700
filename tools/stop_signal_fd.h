// StopSignalFd: SIGTERM, SIGINT and SIGHUP as a descriptor to poll, for a blocking loop
// (the `las serve` bridge) that must end cleanly on them instead of dying by their default
// action.
//
// Construction blocks the three signals in the calling thread and opens a signalfd for
// them; destruction closes it but leaves them blocked: its owner ends the process next, and
// a second signal arriving meanwhile must not kill it by the default action after all. A
// signal whose disposition is SIG_IGN at construction (SIGHUP under nohup) is left out:
// neither blocked nor read, so the kernel discards it as before. If the signalfd cannot be made, fd() is -1 and the mask is left as it was: the
// signals keep their default action.
//
// Threading: one thread; the mask is that thread's (threads started later inherit it).
#pragma once

#include <signal.h>

#include <string>

namespace las::tools {

class StopSignalFd {
 public:
  StopSignalFd();
  ~StopSignalFd();
  StopSignalFd(const StopSignalFd&) = delete;
  StopSignalFd& operator=(const StopSignalFd&) = delete;

  // The descriptor to poll for POLLIN; -1 when unavailable.
  int fd() const { return fd_; }
  // The signal waiting on fd() (0 if none); call after poll reported POLLIN.
  int Take();

  // "SIGTERM", "SIGINT", "SIGHUP" (else "signal N").
  static std::string Name(int signal);

 private:
  int fd_ = -1;
};

}  // namespace las::tools
