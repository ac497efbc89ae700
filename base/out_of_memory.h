// Out of memory: no verdict on the input whose handling ran short. Under `ulimit -v` a valid
// release was recorded rejected `manifest-invalid`, and code that catches an exception to
// refuse its input, or a parser that fails without saying why, turns std::bad_alloc into
// such a verdict wherever it happens (probe FR1). So failures are counted where they start:
// CountAllocationFailures() installs a std::new_handler that counts each failed allocation
// and throws std::bad_alloc as operator new would; a check watched by an AllocationWatch
// that saw one is no verdict, and says so as OutOfMemory (kIo: exit 9 at the CLI).
//
// Thread safety: the count is process-wide (atomic): another thread running out meanwhile
// also voids a watched check, which then fails closed.
#pragma once

#include <cstdint>
#include <new>
#include <string>

#include "base/status.h"

namespace las {

// Installs the counting new_handler (replacing any other). Call once, early in main().
void CountAllocationFailures();
// Allocations failed for lack of memory so far (0 without the handler installed).
uint64_t AllocationFailures();

// Whether an allocation failed since construction.
class AllocationWatch {
 public:
  bool RanOut() const { return AllocationFailures() != start_; }

 private:
  uint64_t start_ = AllocationFailures();
};

// "WHAT: out of memory (...)", kIo.
Status OutOfMemory(const std::string& what);

// `work()`'s result, unless memory ran out while it ran (an allocation failed, or it threw
// std::bad_alloc): then `ran_out()`'s. Any other exception passes on — unless memory ran
// out meanwhile, as libraries turn std::bad_alloc into exceptions of their own (valijson).
template <typename Work, typename RanOut>
auto UnlessMemoryRanOut(Work work, RanOut ran_out) -> decltype(work()) {
  const AllocationWatch watch;
  try {
    auto result = work();
    if (!watch.RanOut()) return result;
  } catch (const std::bad_alloc&) {
  } catch (...) {
    if (!watch.RanOut()) throw;
  }
  return ran_out();
}

}  // namespace las
