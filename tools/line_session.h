// LineSession: one MCP client session over a line transport — `las serve`'s stdio, or one
// connection to `las daemon`. It owns the session's McpEndpoint (gateway as backend) and
// knows how a session ends.
//
// Ending: after EndInput(), the session waits until no tools/call is in flight (a call
// whose client has gone still finishes and is logged; its answer is dropped by the output),
// then until every answer line has been written or the peer is gone, then records
// SessionClosed with the reason given (only if the client ever initialized), then runs
// `closed`.
//
// Threading: everything on the gateway's loop thread. The gateway, the output and whatever
// `closed` refers to must outlive the session; destroy it only after `closed` ran (or after
// the loop stopped).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "tools/mcp_endpoint.h"

namespace las::tools {

class Gateway;
class LineOutput;

class LineSession {
 public:
  LineSession(Gateway& gateway, EndpointOptions options, LineOutput& output);
  ~LineSession();
  LineSession(const LineSession&) = delete;
  LineSession& operator=(const LineSession&) = delete;

  // One client line (without its '\n'), or the prefix of one cut for being too long and
  // then its last bytes (McpEndpoint::OnOversizedLine, OnOversizedLineEnd).
  void OnLine(std::string_view line);
  void OnTooLong(std::string_view prefix);
  void OnTooLongEnd(std::string_view tail);

  // The client's input ended (EOF, peer gone, or the server stops reading). `reason` is
  // asked once, when the session is about to close (so it can see whether answers could
  // still be delivered); `closed` runs on the loop after SessionClosed is durable. A second
  // call is ignored.
  void EndInput(std::function<std::string()> reason, std::function<void()> closed);

  bool input_ended() const { return input_ended_; }
  // Flow control of the session's input beside its output's (tools/held_answers.h): the
  // bytes of its answers decided but held for the log, which the input's `answers`
  // (tools/stdio_lines.h) counts as unwritten; and `read` at once when none are held, else
  // at their next release.
  size_t HeldAnswerBytes() const;
  void ReadWhenAnswersReleased(std::function<void()> read);
  size_t in_flight() const { return endpoint_->in_flight(); }
  size_t answers_owed() const { return endpoint_->answers_owed(); }

 private:
  void MaybeFinish();

  Gateway& gateway_;
  LineOutput& output_;
  std::unique_ptr<McpEndpoint> endpoint_;
  bool input_ended_ = false;
  bool finishing_ = false;
  std::function<std::string()> reason_;
  std::function<void()> closed_;
};

}  // namespace las::tools
