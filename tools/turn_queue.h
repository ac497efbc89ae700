// TurnQueue: the deferred turns of a daemon's connections, run one per pass of the loop.
//
// A connection that has more lines than it may decide in one turn (tools/paced_lines.h,
// kLinesPerTurn) defers the rest. Posted straight to the loop, every such connection's
// turn waited in one queue: with 30 connections flooding, each step of another client's
// call — its read, the child's answer, its completion — waited behind 30 turns (probe JI1:
// one echo call took 4.7 s instead of 2 ms). Deferred here, one turn is posted at a time:
// what else the loop has ready runs after a turn or two, however many connections flood,
// and these take their turns in order.
//
// Threading: the loop's thread only. The pass posted on the loop holds the turns still
// waiting, so they run (or are dropped with the loop) even after the queue is gone.
#pragma once

#include <deque>
#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

namespace las::tools {

class TurnQueue {
 public:
  explicit TurnQueue(boost::asio::any_io_executor loop);

  // Runs `turn` on the loop after the turns deferred before it, one per pass of the loop.
  void Defer(std::function<void()> turn);

 private:
  struct Waiting {
    std::deque<std::function<void()>> turns;
    bool posted = false;
  };
  static void RunOne(const boost::asio::any_io_executor& loop, const std::shared_ptr<Waiting>& waiting);

  boost::asio::any_io_executor loop_;
  std::shared_ptr<Waiting> waiting_ = std::make_shared<Waiting>();
};

}  // namespace las::tools
