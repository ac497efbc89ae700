// CheckCancellation: every check armed when Cancel() comes has its aborts run on its own
// loop; one armed later aborts at once; a disarmed one is left alone.
#include "tools/check_cancellation.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <thread>

namespace las::tools {
namespace {

TEST(CheckCancellation, EveryArmedCheckIsAbortedOnItsOwnLoop) {
  CheckCancellation cancellation;
  boost::asio::io_context first_loop, second_loop, disarmed_loop;
  std::thread::id first_thread, second_thread;
  bool disarmed_aborted = false;
  const uint64_t first = cancellation.Arm(first_loop, [&] { first_thread = std::this_thread::get_id(); });
  const uint64_t second = cancellation.Arm(second_loop, [&] { second_thread = std::this_thread::get_id(); });
  const uint64_t gone = cancellation.Arm(disarmed_loop, [&] { disarmed_aborted = true; });
  cancellation.Disarm(gone);
  EXPECT_FALSE(cancellation.cancelled());

  std::thread other([&] { cancellation.Cancel(); });
  other.join();
  EXPECT_TRUE(cancellation.cancelled());
  std::thread::id runner_thread;
  std::thread second_runner([&] {
    runner_thread = std::this_thread::get_id();
    second_loop.run();
  });
  first_loop.run();
  second_runner.join();
  disarmed_loop.run();
  EXPECT_EQ(first_thread, std::this_thread::get_id()) << "the first check aborted on its loop";
  EXPECT_EQ(second_thread, runner_thread) << "the second check aborted on its own loop";
  EXPECT_FALSE(disarmed_aborted);
  cancellation.Disarm(first);
  cancellation.Disarm(second);

  boost::asio::io_context late_loop;
  bool late_aborted = false;
  cancellation.Arm(late_loop, [&] { late_aborted = true; });
  late_loop.run();
  EXPECT_TRUE(late_aborted) << "a check armed after Cancel aborts at once";
}

}  // namespace
}  // namespace las::tools
