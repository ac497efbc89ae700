#include "tools/check_cancellation.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace las::tools {

void CheckCancellation::Cancel() {
  std::lock_guard lock(mutex_);
  if (cancelled_) return;
  cancelled_ = true;
  for (const auto& [id, armed] : armed_) boost::asio::post(*armed.io, armed.abort_all);
}

bool CheckCancellation::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

uint64_t CheckCancellation::Arm(boost::asio::io_context& io, std::function<void()> abort_all) {
  std::lock_guard lock(mutex_);
  if (cancelled_) {
    boost::asio::post(io, std::move(abort_all));
    return 0;
  }
  const uint64_t id = next_id_++;
  armed_.emplace(id, Armed{&io, std::move(abort_all)});
  return id;
}

void CheckCancellation::Disarm(uint64_t id) {
  std::lock_guard lock(mutex_);
  armed_.erase(id);
}

}  // namespace las::tools
