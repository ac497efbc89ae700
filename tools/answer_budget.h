// AnswerBudget: the unwritten answers of all of a daemon's connections together. Each
// connection stops reading its client past kPauseReadingAboveBytes of its own unwritten
// answers (tools/line_write_queue.h), so a client that reads nothing costs about that much
// — but a thousand such connections would hold gigabytes (probe CS3: forty held 606 MB).
// Once all of them together hold more than the budget, a connection that holds more than
// the floor stops reading too, until its own answers are written down to the floor; one
// that holds less goes on whatever the others hold, so clients that read are served while
// others do not read. The memory held is at most the budget plus, per connection, the
// floor and one answer.
//
// Threading: the daemon's loop thread only.
#pragma once

#include <cstddef>

namespace las::tools {

class AnswerBudget {
 public:
  AnswerBudget(size_t total_bytes, size_t floor_bytes)
      : total_(total_bytes), floor_(floor_bytes) {}

  // Whether a connection holding `unwritten` bytes must not take another request now.
  bool Holds(size_t unwritten) const { return used_ > total_ && unwritten > floor_; }
  // A connection's unwritten answers changed from `before` to `after` bytes.
  void Update(size_t before, size_t after) {
    used_ = used_ - before + after;
    if (used_ > peak_) peak_ = used_;
  }
  size_t used() const { return used_; }

  // True once after the answers held reached kReturnMemoryAfterBytes and have since fallen
  // to an eighth of that peak: the freed memory is worth handing back to the system (probe
  // JI2: 30 clients that read nothing left an idle daemon at 150 MB, the allocator's; JK2:
  // waiting for none held at all kept 379 MB while other clients went on reading).
  static constexpr size_t kReturnMemoryAfterBytes = 16 * 1024 * 1024;
  bool DrainedAfterAPeak() {
    if (peak_ < kReturnMemoryAfterBytes || used_ > peak_ / 8) return false;
    peak_ = 0;
    return true;
  }

 private:
  size_t total_;
  size_t floor_;
  size_t used_ = 0;
  size_t peak_ = 0;  // the most held since DrainedAfterAPeak last said so
};

}  // namespace las::tools
