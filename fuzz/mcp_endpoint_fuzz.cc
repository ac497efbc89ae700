// Feeds: a client's bytes to tools::McpEndpoint, one line per '\n'. A line whose first
// byte is 0x01 is handed to OnOversizedLine (the rest is the cut prefix), as the transport
// does with a line over its limit. The backend answers tools/call at once (with a result,
// an error, or progress then a result) or, for a name of odd length, only once the
// input has ended — so that cancellations and reused ids meet calls in flight.
// Checks: no crash or sanitizer report; every line written is one JSON object
// (transport::ValidateJson) with no newline in it; the session's agent id never changes
// once bound; after every deferred call completes, nothing is in flight.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "tools/mcp_endpoint.h"
#include "transport/json_text.h"

namespace {

using las::tools::EndpointBackend;
using las::tools::ProgressSink;
using las::tools::SessionInfo;
using las::tools::ToolCallProgress;
using las::tools::ToolCallReply;

class ImmediateBackend final : public EndpointBackend {
 public:
  void OnSessionOpened(const SessionInfo&) override {}
  std::string ListTools(const SessionInfo&) override {
    return R"({"tools":[{"name":"a__b","inputSchema":{"type":"object"}}]})";
  }
  void CallTool(const SessionInfo&, const std::string&, const std::string& name,
                const std::string& arguments_json, ProgressSink progress,
                std::function<void(ToolCallReply)> done) override {
    if (name.size() % 2 == 1) {
      deferred.push_back(std::move(done));
      return;
    }
    if (progress) progress(ToolCallProgress{0.5, 1.0});
    if (arguments_json.size() % 3 == 0) {
      done(ToolCallReply::Error(-32603, "Internal error"));
    } else {
      done(ToolCallReply::Result(R"({"content":[{"type":"text","text":"ok"}]})"));
    }
  }
  std::vector<std::function<void(ToolCallReply)>> deferred;
};

void CheckLine(const std::string& line) {
  LAS_FUZZ_CHECK(line.find('\n') == std::string::npos, "an answer holds a newline");
  std::vector<las::transport::JsonMember> members;
  bool is_object = false;
  const auto error = las::transport::ObjectMembers(line, &members, 64, &is_object);
  LAS_FUZZ_CHECK(error == las::transport::JsonTextError::kNone && is_object,
                 "an answer is not one JSON object");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  ImmediateBackend backend;
  las::tools::EndpointOptions options;
  options.max_line_bytes = 64 * 1024;
  options.new_session_id = [] { return std::string("session-1"); };
  las::tools::McpEndpoint endpoint(options, backend, CheckLine);
  std::string bound_agent;
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    if (!line.empty() && line.front() == '\x01') {
      endpoint.OnOversizedLine(line.substr(1));
    } else {
      endpoint.OnLine(line);
    }
    if (endpoint.session()) {
      if (bound_agent.empty()) bound_agent = endpoint.session()->agent_id;
      LAS_FUZZ_CHECK(endpoint.session()->agent_id == bound_agent, "the agent id changed");
    }
    start = end + 1;
  }
  auto deferred = std::move(backend.deferred);
  for (auto& done : deferred) done(ToolCallReply::Result(R"({"content":[]})"));
  LAS_FUZZ_CHECK(endpoint.in_flight() == 0, "a call is still in flight after its answer");
  return 0;
}
