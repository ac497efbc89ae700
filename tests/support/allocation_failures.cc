#include "tests/support/allocation_failures.h"

#include <cstdlib>
#include <new>

namespace las::testing {

thread_local long allocations_until_failure = -1;
thread_local bool failed_one = false;

}  // namespace las::testing

void* operator new(std::size_t size) {
  using las::testing::allocations_until_failure;
  if (allocations_until_failure == 0) {
    allocations_until_failure = -1;
    las::testing::failed_one = true;
    if (std::new_handler handler = std::get_new_handler()) handler();
    throw std::bad_alloc();
  }
  if (allocations_until_failure > 0) --allocations_until_failure;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
