// Failing allocations on purpose, one at a time, to show that code meets running out of
// memory as it should (base/out_of_memory.h): a real memory limit cannot pick which
// allocation fails. A test binary that uses this compiles tests/support/allocation_failures.cc
// among its own sources (not from a library: it replaces the global operator new, which a
// library's member would not be linked for). Only the thread that arms it fails.
//
// Threading: the countdown is thread-local; FailEachAllocationInTurn forks a child per run.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <vector>

#include "base/out_of_memory.h"

namespace las::testing {

// The number of this thread's allocations until the one that fails; -1: none fails. The
// failing one calls the new_handler (CountAllocationFailures' counts it) and throws
// std::bad_alloc, as operator new does when malloc fails.
extern thread_local long allocations_until_failure;
// Set when the armed allocation failed.
extern thread_local bool failed_one;

// What the runs of FailEachAllocationInTurn came to.
struct Runs {
  int failed_one = 0;  // runs in which an allocation failed and the result was judged right
  // Runs that ended the process in a library that cannot take a failed allocation:
  // nlohmann's json destructor allocates (a stack for its children) and, noexcept,
  // terminates (SIGABRT); RE2 compiling a pattern is not exception-safe, and crashes later
  // (SIGSEGV, after its walker's "Stack not empty" check fires). Counted, not judged.
  int crashed = 0;
  std::vector<std::string> wrong;  // what `judge` said of the others
};

// Runs `attempt` with its first, second, ... allocation failing, each in a child process
// (a failure inside a library that cannot take one ends it: Runs::crashed), until a run
// fails none. `judge` returns "" when a run's result is right for a failed allocation,
// else what is wrong with it; `after_run`, in this process once the child has ended,
// judges what the run left behind (its files) the same way.
template <typename Attempt, typename Judge, typename AfterRun>
Runs FailEachAllocationInTurn(Attempt attempt, Judge judge, AfterRun after_run) {
  Runs runs;
  for (long nth = 0; nth < 100'000; ++nth) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) {
      ADD_FAILURE() << "pipe";
      return runs;
    }
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      las::CountAllocationFailures();
      failed_one = false;
      allocations_until_failure = nth;
      std::string verdict;
      try {
        auto result = attempt();
        allocations_until_failure = -1;
        verdict = failed_one ? "=" + judge(result) : "done";
      } catch (const std::exception& thrown) {
        allocations_until_failure = -1;
        verdict = std::string("=threw ") + thrown.what();
      }
      (void)!::write(pipe_fds[1], verdict.data(), verdict.size());
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string verdict;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) verdict.append(buffer, n);
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGSEGV)) {
      ++runs.crashed;
      continue;
    }
    if (verdict == "done") break;
    if (verdict == "=") verdict += after_run();
    if (verdict == "=") {
      ++runs.failed_one;
    } else {
      runs.wrong.push_back("allocation " + std::to_string(nth) + ": " +
                           (verdict.empty() ? "no verdict, wait status " + std::to_string(status)
                                            : verdict.substr(1)));
    }
  }
  return runs;
}

template <typename Attempt, typename Judge>
Runs FailEachAllocationInTurn(Attempt attempt, Judge judge) {
  return FailEachAllocationInTurn(attempt, judge, [] { return std::string(); });
}

}  // namespace las::testing
