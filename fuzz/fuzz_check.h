// What a harness does when an invariant it checks fails: print what failed and abort, so
// libFuzzer (or the corpus driver) stops on the input and keeps it as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

#define LAS_FUZZ_CHECK(condition, what)                                                   \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__,      \
                   #condition, what);                                                     \
      std::abort();                                                                       \
    }                                                                                     \
  } while (false)

#include <chrono>

namespace las::fuzz {

// Aborts when one input took longer than LAS_FUZZ_SLOW_MS milliseconds (unset or 0: never),
// so that libFuzzer keeps a slow input as it keeps a crash. For the validators, whose
// inputs must never stall a loop; sanitizers make everything several times slower, so
// pick the bound with that in mind.
class SlowInputGuard {
 public:
  SlowInputGuard() : start_(std::chrono::steady_clock::now()) {
    static const long bound = [] {
      const char* text = std::getenv("LAS_FUZZ_SLOW_MS");
      return text == nullptr ? 0L : std::strtol(text, nullptr, 10);
    }();
    bound_ms_ = bound;
  }
  ~SlowInputGuard() {
    if (bound_ms_ <= 0) return;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start_);
    if (elapsed.count() > bound_ms_) {
      std::fprintf(stderr, "slow input: %lld ms (bound %ld ms)\n",
                   static_cast<long long>(elapsed.count()), bound_ms_);
      std::abort();
    }
  }
  SlowInputGuard(const SlowInputGuard&) = delete;
  SlowInputGuard& operator=(const SlowInputGuard&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
  long bound_ms_ = 0;
};

}  // namespace las::fuzz
