// WorkerThread (tools/worker_thread.h): jobs run one at a time, in order, on a thread that
// is not the caller's; destruction waits for the running job.
#include "tools/worker_thread.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <thread>
#include <vector>

namespace las::tools {
namespace {

TEST(WorkerThreadTest, RunsJobsInOrderOnAnotherThread) {
  WorkerThread worker;
  std::vector<int> order;  // written by the worker only, read after the last job
  std::thread::id ran_on;
  std::promise<void> last;
  OffLoopRunner run = worker.Runner();
  for (int i = 0; i < 5; ++i) {
    run([&order, &ran_on, i] {
      order.push_back(i);
      ran_on = std::this_thread::get_id();
    });
  }
  run([&last] { last.set_value(); });
  last.get_future().wait();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(WorkerThreadTest, DestructionWaitsForTheRunningJob) {
  auto worker = std::make_unique<WorkerThread>();
  std::promise<void> started;
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  bool finished = false;
  worker->Run([&started, open, &finished] {
    started.set_value();
    open.wait();
    finished = true;
  });
  started.get_future().wait();
  std::thread destroyer([&worker] { worker.reset(); });
  gate.set_value();
  destroyer.join();
  EXPECT_TRUE(finished) << "the destructor returned before its running job ended";
}

TEST(WorkerThreadTest, AWorkerNeverGivenAJobStartsNoThreadAndGoesAtOnce) {
  WorkerThread worker;
}

// When no thread can be had (the user's process limit spent, probe AE8) the job still runs,
// on the caller's thread, instead of the process dying of an uncaught std::system_error.
// In a forked child whose limit is 1 process: as root it first becomes nobody, since the
// limit does not bind root.
TEST(WorkerThreadTest, WithoutAThreadToBeHadTheJobRunsOnTheCallersThread) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(10);
    const rlimit one{1, 1};
    if (::setrlimit(RLIMIT_NPROC, &one) != 0) ::_exit(11);
    bool threads_refused = false;
    try {
      std::thread([] {}).join();
    } catch (const std::system_error&) {
      threads_refused = true;
    }
    if (!threads_refused) ::_exit(12);  // the limit did not bind: nothing shown
    std::thread::id ran_on;
    {
      WorkerThread worker;
      worker.Run([&ran_on] { ran_on = std::this_thread::get_id(); });
    }
    ::_exit(ran_on == std::this_thread::get_id() ? 0 : 13);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10/11: could not set up, 12: the limit did not bind, "
                                       "13: the job did not run";
}

}  // namespace
}  // namespace las::tools
