// The timer that ends a served release at its expiry (Federation::WatchExpiry). A
// Boost.Asio timer, so it stays out of federation.h, which many files include.
#pragma once

#include <boost/asio/steady_timer.hpp>

namespace las::tools {

struct ExpiryWatch {
  explicit ExpiryWatch(boost::asio::io_context& io) : timer(io) {}
  boost::asio::steady_timer timer;
};

}  // namespace las::tools
