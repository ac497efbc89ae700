// CpuKeeper: keeps every CPU out of its idle state, without taking time from real work.
//
// On a virtual machine a halted vCPU can take a whole timer tick (4 ms at HZ=250) to be
// woken when the disk completes an I/O, so a lone thread that sleeps in fdatasync() measures
// the hypervisor's wake-up, not the disk or the software. While a CpuKeeper lives, one
// thread per CPU, pinned there and scheduled SCHED_IDLE (it runs only when nothing else
// wants that CPU), spins, so no CPU ever halts. The benchmark runs the durability figures
// both ways ("idle" and "awake") and reports both.
//
// Thread safety: construct and destroy on one thread.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace las::bench {

class CpuKeeper {
 public:
  CpuKeeper();  // starts one spinner per online CPU
  ~CpuKeeper();  // stops and joins them
  CpuKeeper(const CpuKeeper&) = delete;
  CpuKeeper& operator=(const CpuKeeper&) = delete;

  // False if a spinner could not be made SCHED_IDLE or pinned (it still spins).
  bool exact() const { return exact_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> exact_{true};
  std::vector<std::thread> spinners_;
};

}  // namespace las::bench
