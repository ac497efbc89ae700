// When Las starts a stopped surface again: exponential backoff with a ceiling.
//
// The first stop waits `initial_ms`. Each further stop of a child that ran less than
// `max_ms`, and each failed start, doubles the wait up to `max_ms`; a child that ran at
// least `max_ms` was healthy, so its stop starts again from `initial_ms`. A value type;
// `initial_ms` <= 0 means never again (every call returns kNever).
#pragma once

#include <algorithm>
#include <cstdint>

namespace las::tools {

class RestartBackoff {
 public:
  static constexpr int64_t kNever = -1;

  RestartBackoff(int64_t initial_ms, int64_t max_ms)
      : initial_ms_(initial_ms), max_ms_(std::max(initial_ms, max_ms)) {}

  // The child stopped after running `ran_ms`: the wait before the next start.
  int64_t AfterStop(int64_t ran_ms) {
    if (initial_ms_ <= 0) return kNever;
    if (current_ms_ == 0 || ran_ms >= max_ms_) return current_ms_ = initial_ms_;
    return Double();
  }

  // A start failed (the child did not start, initialize or list): the wait before the next.
  int64_t AfterFailedStart() { return initial_ms_ <= 0 ? kNever : Double(); }

 private:
  int64_t Double() { return current_ms_ = std::min(max_ms_, std::max(initial_ms_, current_ms_ * 2)); }

  int64_t initial_ms_;
  int64_t max_ms_;
  int64_t current_ms_ = 0;
};

}  // namespace las::tools
