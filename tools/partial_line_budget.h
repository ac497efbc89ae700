// PartialLineBudget: the bytes that all of a daemon's connections may hold at once in
// partial lines (lines whose '\n' has not come yet) and in whole lines that wait behind a
// connection's unwritten answers (tools/paced_lines.h held_bytes). Each connection may hold up to the
// line limit (4 MiB), and a client that sends most of a line and stalls keeps it held: a
// thousand such connections would hold gigabytes. Under the budget each connection's
// partial line is bounded (transport::LineFramer::set_partial_limit) by what it holds plus
// what the budget has left, but never below a floor every connection has whatever the
// others hold: the daemon reads 64 KiB at a time, so no line longer than that arrives whole,
// and without the floor a few stalled clients would get every ordinary request of 100 KB
// from anyone else refused (probe CK2). A line cut that way is answered as too large, like
// a line over the limit. The memory held is at most the budget plus the floor per
// connection.
//
// Threading: the daemon's loop thread only.
#pragma once

#include <algorithm>
#include <cstddef>

namespace las::tools {

class PartialLineBudget {
 public:
  PartialLineBudget(size_t total_bytes, size_t floor_bytes)
      : total_(total_bytes), floor_(floor_bytes) {}

  // How many bytes a connection now holding `held` may hold after its next read.
  size_t LimitFor(size_t held) const {
    return std::max(floor_, held + (total_ > used_ ? total_ - used_ : 0));
  }
  // A connection's holding changed from `before` to `after`.
  void Update(size_t before, size_t after) { used_ = used_ - before + after; }

 private:
  size_t total_;
  size_t floor_;
  size_t used_ = 0;
};

}  // namespace las::tools
