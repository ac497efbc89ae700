// Clocks, injected everywhere time matters (expiry, timestamps, timeouts).
//
// WallClock gives real-world time for timestamps and expiry checks; MonotonicClock gives
// a steadily increasing time for durations and timeouts. Production code receives the
// system implementations; tests pass ManualClock to make time deterministic.
//
// Thread safety: all implementations here are safe to call from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace las {

class WallClock {
 public:
  virtual ~WallClock() = default;
  // Microseconds since the Unix epoch, UTC.
  virtual int64_t NowMicros() const = 0;
};

class MonotonicClock {
 public:
  virtual ~MonotonicClock() = default;
  // Nanoseconds since an arbitrary fixed origin; never decreases.
  virtual int64_t NowNanos() const = 0;
};

// The process-wide system clocks. Never null; live for the whole program.
const WallClock& SystemWallClock();
const MonotonicClock& SystemMonotonicClock();

// A clock that only moves when told to: for tests.
class ManualClock final : public WallClock, public MonotonicClock {
 public:
  explicit ManualClock(int64_t start_micros = 0) : micros_(start_micros) {}
  int64_t NowMicros() const override { return micros_.load(); }
  int64_t NowNanos() const override { return micros_.load() * 1000; }
  void Set(int64_t micros) { micros_.store(micros); }
  void Advance(int64_t micros) { micros_.fetch_add(micros); }

 private:
  std::atomic<int64_t> micros_;
};

}  // namespace las
