#include "tools/check_cancellation.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace las::tools {

void CheckCancellation::Cancel() {
  std::lock_guard lock(mutex_);
  if (cancelled_) return;
  cancelled_ = true;
  if (io_ != nullptr) boost::asio::post(*io_, abort_all_);
}

bool CheckCancellation::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void CheckCancellation::Arm(boost::asio::io_context& io, std::function<void()> abort_all) {
  std::lock_guard lock(mutex_);
  if (cancelled_) {
    boost::asio::post(io, std::move(abort_all));
    return;
  }
  io_ = &io;
  abort_all_ = std::move(abort_all);
}

void CheckCancellation::Disarm() {
  std::lock_guard lock(mutex_);
  io_ = nullptr;
  abort_all_ = nullptr;
}

}  // namespace las::tools
