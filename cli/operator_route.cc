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

// What to report when no server was reached: the lock, naming where the server was looked
// for, when none runs there; else why its socket cannot be used (an unusable
// XDG_RUNTIME_DIR is a usage error, an unsafe socket directory a denial), never "a server
// that does not answer" for a server the CLI did not ask (probe CD1).
Status Unreached(const std::string& log_dir, const Status& locked, const Status& why) {
  if (why.code() == Code::kNotFound) {
    // Where no server answers, one may still run with another runtime directory: then
    // running this again cannot help (probes HT4, HV1: a stale socket left here too).
    return Status(Code::kLocked, locked.message() + " (" + why.message() +
                                     "; a server holding the log is asked through its socket "
                                     "there, under XDG_RUNTIME_DIR: if one runs, run this "
                                     "with the XDG_RUNTIME_DIR it has)");
  }
  return Status(why.code(), log_dir + ": the log is held by another las process, and the socket "
                                      "its server would answer on cannot be used: " +
                                why.message() + "; nothing was changed");
}

}  // namespace

Result<std::string> ThroughServer(const std::string& log_dir, const Status& locked,
                                  const std::string& method, const std::string& params_json) {
  bool reached = false;
  auto answer =
      tools::SendOperatorRequest({log_dir, RuntimeDir(), method, params_json}, &reached);
  if (!reached) return Unreached(log_dir, locked, answer.status());
  return answer;
}

Status ServerAnswers(const std::string& log_dir, const Status& locked) {
  bool reached = false;
  auto answer = tools::SendOperatorRequest(
      {log_dir, RuntimeDir(), std::string(tools::kOperatorHello), "{}"}, &reached);
  if (!reached) return Unreached(log_dir, locked, answer.status());
  return answer.status();
}

}  // namespace las::cli
