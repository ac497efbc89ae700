#include "cli/operator_route.h"

#include <cstdlib>

#include "tools/operator_channel.h"
#include "tools/operator_client.h"

namespace las::cli {
namespace {

std::string RuntimeDir() {
  const char* value = std::getenv("XDG_RUNTIME_DIR");
  return value != nullptr ? value : "";
}

}  // namespace

Result<std::string> ThroughServer(const std::string& log_dir, const Status& locked,
                                  const std::string& method, const std::string& params_json) {
  bool reached = false;
  auto answer =
      tools::SendOperatorRequest({log_dir, RuntimeDir(), method, params_json}, &reached);
  if (!reached) return locked;
  return answer;
}

bool ServerAnswers(const std::string& log_dir) {
  return tools::SendOperatorRequest(
             {log_dir, RuntimeDir(), std::string(tools::kOperatorHello), "{}"})
      .ok();
}

}  // namespace las::cli
