// HeldSyncsLog: an EventLog that stands for a disk whose syncs stall. It passes everything
// to a real log except AwaitDurableAsync, whose waits it keeps until Release(): the events
// are written, but no one who waits off the writer's thread hears they are durable, and
// durable_sequence() says no more than what was released (the real log's background sync
// of deferred writes does not count). A synced Append or AppendInPlace on the writer's own
// thread is not held.
// Threading: appends, AwaitDurableAsync and Release on one thread (the test's loop);
// durable_sequence() from any.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "tests/support/forwarding_log.h"

namespace las::testing {

class HeldSyncsLog final : public ForwardingLog {
 public:
  explicit HeldSyncsLog(std::unique_ptr<log::EventLog> log)
      : ForwardingLog(std::move(log)), released_(real().durable_sequence()) {}

  size_t held() const { return held_.size(); }
  // Lets every held wait go on to the real log.
  void Release() {
    for (auto& [sequence, done] : std::exchange(held_, {})) {
      Raise(sequence);
      real().AwaitDurableAsync(sequence, std::move(done));
    }
  }

  void AwaitDurableAsync(uint64_t sequence, DurableCallback done) override {
    held_.emplace_back(sequence, std::move(done));
  }
  uint64_t durable_sequence() const override {
    return std::min(real_durable(), released_.load());
  }
  Result<log::AppendedRange> Append(std::vector<log::EventDraft> drafts,
                                    log::Durability durability) override {
    return Raised(ForwardingLog::Append(std::move(drafts), durability), durability);
  }
  Result<log::AppendedRange> AppendInPlace(std::vector<log::EventDraft>& drafts,
                                           log::Durability durability) override {
    return Raised(ForwardingLog::AppendInPlace(drafts, durability), durability);
  }

 private:
  uint64_t real_durable() const { return ForwardingLog::durable_sequence(); }
  void Raise(uint64_t sequence) {
    released_.store(std::max(released_.load(), sequence));
  }
  // A synced append returned: on disk, not held.
  Result<log::AppendedRange> Raised(Result<log::AppendedRange> range, log::Durability durability) {
    if (range.ok() && durability == log::Durability::kSynced) Raise(range->last);
    return range;
  }

  std::vector<std::pair<uint64_t, DurableCallback>> held_;
  std::atomic<uint64_t> released_;
};

}  // namespace las::testing
