#include "bench/cpu_keeper.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace las::bench {

CpuKeeper::CpuKeeper() {
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < cpus; ++cpu) {
    spinners_.emplace_back([this, cpu] {
      sched_param param{};
      param.sched_priority = 0;
      if (::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &param) != 0) exact_ = false;
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(static_cast<int>(cpu), &set);
      if (::pthread_setaffinity_np(::pthread_self(), sizeof(set), &set) != 0) exact_ = false;
      while (!stop_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
    });
  }
}

CpuKeeper::~CpuKeeper() {
  stop_ = true;
  for (auto& spinner : spinners_) spinner.join();
}

}  // namespace las::bench
