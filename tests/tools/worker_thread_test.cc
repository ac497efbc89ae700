// WorkerThread (tools/worker_thread.h): jobs run one at a time, in order, on a thread that
// is not the caller's; destruction waits for the running job.
#include "tools/worker_thread.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace las::tools
