#include "base/out_of_memory.h"

#include <atomic>
#include <new>

namespace las {
namespace {

std::atomic<uint64_t> allocation_failures{0};

void CountAndFail() {
  allocation_failures.fetch_add(1, std::memory_order_relaxed);
  throw std::bad_alloc();
}

}  // namespace

void CountAllocationFailures() { std::set_new_handler(CountAndFail); }

uint64_t AllocationFailures() { return allocation_failures.load(std::memory_order_relaxed); }

Status OutOfMemory(const std::string& what) {
  return IoError(what + ": out of memory (a memory limit such as ulimit -v, or the machine's "
                        "memory, is spent)");
}

}  // namespace las
