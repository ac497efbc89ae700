// Waiting on what other processes do, for tests that drive real ones: a bounded wait for a
// condition (a file a child writes, a process gone), and the children of a process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <thread>
#include <vector>

namespace las::testing {

// Waits (bounded) until `condition` holds, looking every 10 ms; false if it never did.
template <typename Condition>
bool AwaitCondition(Condition condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

// The live children of process `parent` (from /proc/*/stat).
std::vector<pid_t> ChildrenOf(pid_t parent);

}  // namespace las::testing
