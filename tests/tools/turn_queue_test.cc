#include "tools/turn_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace las::tools {
namespace {

// Handlers posted while turns wait run after a turn or two, not behind all of them (probe
// JI1: behind every flooding connection's turn, one call of another client took seconds).
TEST(TurnQueueTest, OtherWorkRunsBetweenDeferredTurns) {
  boost::asio::io_context io;
  TurnQueue turns(io.get_executor());
  std::vector<std::string> order;
  for (int i = 0; i < 10; ++i) {
    turns.Defer([&order, i] { order.push_back("turn" + std::to_string(i)); });
  }
  boost::asio::post(io, [&] { order.push_back("other"); });
  io.run();
  ASSERT_EQ(order.size(), 11u);
  const auto other = std::find(order.begin(), order.end(), "other") - order.begin();
  EXPECT_LE(other, 2) << "waited behind " << other << " turns";
  std::vector<std::string> turns_in_order;
  for (const std::string& name : order) {
    if (name != "other") turns_in_order.push_back(name);
  }
  for (int i = 0; i < 10; ++i) EXPECT_EQ(turns_in_order[i], "turn" + std::to_string(i));
}

// A turn that defers another goes behind those already waiting (each connection in turn).
TEST(TurnQueueTest, ATurnDeferredFromATurnWaitsForThoseBeforeIt) {
  boost::asio::io_context io;
  TurnQueue turns(io.get_executor());
  std::vector<std::string> order;
  turns.Defer([&] {
    order.push_back("a1");
    turns.Defer([&] { order.push_back("a2"); });
  });
  turns.Defer([&] { order.push_back("b1"); });
  io.run();
  EXPECT_EQ(order, (std::vector<std::string>{"a1", "b1", "a2"}));
}

}  // namespace
}  // namespace las::tools
