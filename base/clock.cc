#include "base/clock.h"

#include <chrono>

namespace las {
namespace {

class SystemWall final : public WallClock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

class SystemMonotonic final : public MonotonicClock {
 public:
  int64_t NowNanos() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const WallClock& SystemWallClock() {
  static const SystemWall clock;
  return clock;
}

const MonotonicClock& SystemMonotonicClock() {
  static const SystemMonotonic clock;
  return clock;
}

}  // namespace las
