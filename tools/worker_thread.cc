#include "tools/worker_thread.h"

#include <system_error>
#include <utility>

namespace las::tools {

WorkerThread::~WorkerThread() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // `dropped` goes here, on the owner's thread, after the worker is gone: what the jobs
  // captured is released where their owner expects it.
}

void WorkerThread::Run(std::function<void()> job) {
  bool run_here = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    bool have_thread = thread_.joinable();
    if (!have_thread) {
      try {
        thread_ = std::thread([this] { Loop(); });
        have_thread = true;
      } catch (const std::system_error&) {
        // No thread to be had (the user's process limit is spent, probe AE8): the job runs
        // below on the caller's thread — slower for it, never lost, and the process lives.
      }
    }
    if (have_thread) {
      jobs_.push_back(std::move(job));
    } else {
      run_here = true;
    }
  }
  if (run_here) {
    job();
    return;
  }
  wake_.notify_one();
}

void WorkerThread::Loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // its captures go before the next wait, not with the next job
    lock.lock();
  }
}

}  // namespace las::tools
