// HeldSyncsLog: an EventLog that stands for a disk whose syncs stall. It passes everything
// to a real log except AwaitDurableAsync, whose waits it keeps until Release(): the events
// are written, but no one who waits off the writer's thread hears they are durable. (A
// synced Append or AppendInPlace on the writer's own thread is not held.)
// Threading: AwaitDurableAsync and Release on one thread (the test's loop).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "tests/support/forwarding_log.h"

namespace las::testing {

class HeldSyncsLog final : public ForwardingLog {
 public:
  explicit HeldSyncsLog(std::unique_ptr<log::EventLog> log) : ForwardingLog(std::move(log)) {}

  size_t held() const { return held_.size(); }
  // Lets every held wait go on to the real log.
  void Release() {
    for (auto& [sequence, done] : std::exchange(held_, {})) {
      real().AwaitDurableAsync(sequence, std::move(done));
    }
  }

  void AwaitDurableAsync(uint64_t sequence, DurableCallback done) override {
    held_.emplace_back(sequence, std::move(done));
  }

 private:
  std::vector<std::pair<uint64_t, DurableCallback>> held_;
};

}  // namespace las::testing
