// Ending surface checks (tools/surface_check.h) that run on another thread: a server that
// is shutting down must not wait for a check's children to start or time out.
//
// Each RunChecks arms the cancellation with its private loop and the aborts of its
// launches while they run, and disarms it before the loop goes away (several checks may
// share one cancellation). Cancel() (any thread) posts each armed check's aborts to its
// loop — each ends its child, and its launch then reports a failure — and makes every
// later Arm abort at once. A cancelled check's results describe the
// interruption, not the surfaces: callers should drop them.
//
// Thread safety: Cancel and cancelled from any thread; Arm and Disarm from the check's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace boost::asio {
class io_context;
}

namespace las::tools {

class CheckCancellation {
 public:
  void Cancel();
  bool cancelled() const;

  // `abort_all` runs on `io`'s thread; `io` must run until Disarm(the returned id).
  uint64_t Arm(boost::asio::io_context& io, std::function<void()> abort_all);
  void Disarm(uint64_t id);

 private:
  struct Armed {
    boost::asio::io_context* io;
    std::function<void()> abort_all;
  };
  mutable std::mutex mutex_;
  bool cancelled_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Armed> armed_;
};

}  // namespace las::tools
