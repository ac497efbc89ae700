// RefusalTally: counts refusals of one kind (connections over a cap) and says which are
// worth a line on stderr — the 1st, 2nd, 4th, 8th... — so a client retrying in a loop
// cannot write a line per attempt while the count still shows how many there were.
// Thread-compatible (one event loop).
#pragma once

#include <cstdint>

namespace las::tools {

class RefusalTally {
 public:
  // Counts one refusal; true when this one should be told.
  bool Count() {
    ++count_;
    return (count_ & (count_ - 1)) == 0;
  }
  uint64_t count() const { return count_; }

 private:
  uint64_t count_ = 0;
};

}  // namespace las::tools
