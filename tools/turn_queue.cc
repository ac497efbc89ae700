#include "tools/turn_queue.h"

#include <utility>

#include <boost/asio/post.hpp>

namespace las::tools {

TurnQueue::TurnQueue(boost::asio::any_io_executor loop) : loop_(std::move(loop)) {}

void TurnQueue::Defer(std::function<void()> turn) {
  waiting_->turns.push_back(std::move(turn));
  if (std::exchange(waiting_->posted, true)) return;
  boost::asio::post(loop_, [loop = loop_, waiting = waiting_] { RunOne(loop, waiting); });
}

void TurnQueue::RunOne(const boost::asio::any_io_executor& loop,
                       const std::shared_ptr<Waiting>& waiting) {
  std::function<void()> turn = std::move(waiting->turns.front());
  waiting->turns.pop_front();
  // The next turn goes behind whatever this pass has ready, this turn's posts included.
  if (waiting->turns.empty()) {
    waiting->posted = false;
  } else {
    boost::asio::post(loop, [loop, waiting] { RunOne(loop, waiting); });
  }
  turn();
}

}  // namespace las::tools
