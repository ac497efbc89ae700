// What the federation keeps per launched surface to start it again after its child stops
// (tools/federation_restart.cc). Internal to the federation's two source files; it holds
// a Boost.Asio timer, so keep it out of headers that others include.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tools/restart_backoff.h"
#include "tools/surface_launcher.h"

namespace las::tools {

struct SurfaceRestarts {
  SurfaceRestarts(boost::asio::io_context& io, LaunchOptions options, RestartBackoff initial)
      : launch(std::move(options)), backoff(initial), timer(io) {}

  LaunchOptions launch;  // as the first launch had them
  std::vector<std::pair<std::string, std::string>> withheld;  // tool, reason: recorded again
  RestartBackoff backoff;
  boost::asio::steady_timer timer;
  int64_t started_nanos = 0;    // when the running child was admitted
  std::function<void()> abort;  // set while a start is under way
};

}  // namespace las::tools
