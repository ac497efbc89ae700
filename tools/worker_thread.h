// WorkerThread: one thread that runs jobs handed to it, one at a time and in the order
// given, so that a job too slow for the server's loop (a large argument's schema check,
// tools/gateway.h) runs beside it instead of stalling every session on it.
//
// Run() queues a job and returns at once; the thread starts with the first job. When no
// thread can be started (the user's process limit spent), Run() runs the job itself. A job
// owns what it reads (it shares nothing mutable with the loop) and ends by posting its
// result back to the loop itself (boost::asio::post).
//
// Destruction: the running job finishes (a schema check is not interruptible: up to
// seconds), queued jobs are destroyed without running, and the thread is joined. A loop
// may therefore never hear back from a job it handed over: a poster must tolerate that
// (the server destroys its worker only after its loop stopped).
//
// Threading: Run() from any thread, including from a job. A job must not throw (it would
// end the process, as any exception leaving a thread does).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace las::tools {

// Runs a job on some thread other than the caller's, later (GatewayOptions::run_off_loop).
using OffLoopRunner = std::function<void(std::function<void()> job)>;

class WorkerThread {
 public:
  WorkerThread() = default;
  ~WorkerThread();
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  void Run(std::function<void()> job);
  // Run() as an OffLoopRunner; this WorkerThread must outlive every use of it.
  OffLoopRunner Runner() {
    return [this](std::function<void()> job) { Run(std::move(job)); };
  }

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first Run()
};

}  // namespace las::tools
