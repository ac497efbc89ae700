// PartialLineBudget: the bytes that all of a daemon's connections may hold at once in
// partial lines (lines whose '\n' has not come yet). Each connection may hold up to the
// line limit (4 MiB), and a client that sends most of a line and stalls keeps it held: a
// thousand such connections would hold gigabytes. Under the budget each connection's
// partial line is bounded (transport::LineFramer::set_partial_limit) by what it holds plus
// what the budget has left; a line cut that way is answered as too large, like a line over
// the limit, and complete lines are not affected.
//
// Threading: the daemon's loop thread only.
#pragma once

#include <cstddef>

namespace las::tools {

class PartialLineBudget {
 public:
  explicit PartialLineBudget(size_t total_bytes) : total_(total_bytes) {}

  // How many bytes a connection now holding `held` may hold after its next read.
  size_t LimitFor(size_t held) const { return held + (total_ > used_ ? total_ - used_ : 0); }
  // A connection's holding changed from `before` to `after`.
  void Update(size_t before, size_t after) { used_ = used_ - before + after; }

 private:
  size_t total_;
  size_t used_ = 0;
};

}  // namespace las::tools
