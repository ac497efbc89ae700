#include "tools/held_input.h"

#include <algorithm>

#include <utility>
#include <vector>

#include "tools/line_session.h"
#include "tools/line_write_queue.h"
#include "tools/mcp_endpoint.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"

namespace las::tools {

namespace rpc = transport;

HeldInput::HeldInput(LineOutput& output) : output_(output) {}

LineInputHandlers HeldInput::Handlers() {
  // Once released, events go to the session directly — unless held ones are still being
  // handed over (paced, DeliverHeld): then they queue behind them, in order.
  LineInputHandlers handlers;
  handlers.on_line = [this](std::string_view line) {
    if (Live()) return live_.on_line(line);
    if (released_ || !AnsweredEarly(line)) Take(Kind::kLine, line);
  };
  handlers.on_too_long = [this](std::string_view prefix) {
    if (Live()) return live_.on_too_long(prefix);
    Take(Kind::kTooLong, prefix);
  };
  handlers.on_too_long_end = [this](std::string_view tail) {
    if (!Live()) return Take(Kind::kTooLongEnd, tail);
    if (live_.on_too_long_end) live_.on_too_long_end(tail);
  };
  handlers.on_eof = [this] {
    if (Live()) return live_.on_eof();
    Take(Kind::kEof, {});
  };
  handlers.on_closed = [this] {
    if (!Live()) {
      Take(Kind::kClosed, {});
      if (!released_ && closed_while_held_) closed_while_held_();
      return;
    }
    if (live_.on_closed) live_.on_closed();
  };
  handlers.answers = this;
  return handlers;
}

bool HeldInput::HoldsRequests() const {
  const EndpointOptions options;  // the session's bounds (StdioServer uses the defaults)
  for (size_t i = 0; i < held_.size(); ++i) {
    const Held& event = held_[i];
    if (event.kind == Kind::kLine && McpEndpoint::OwesAnswer(event.bytes, options)) return true;
    if (event.kind == Kind::kTooLong) {
      // Its id may come last, read from the line's end (probe HJ2).
      const bool ended = i + 1 < held_.size() && held_[i + 1].kind == Kind::kTooLongEnd;
      if (McpEndpoint::OwesAnswerForOversized(event.bytes, ended ? held_[i + 1].bytes : "", options)) return true;
    }
  }
  return false;
}

bool HeldInput::Full() const { return held_.size() >= kMostHeldLines || held_bytes_ >= kMostHeldBytes; }

bool HeldInput::StoppedShortOfTheEnd() const {
  return Full() && std::none_of(held_.begin(), held_.end(), [](const Held& event) {
           return event.kind == Kind::kEof || event.kind == Kind::kClosed;
         });
}

void HeldInput::Release(LineInputHandlers live, LineSession* session) {
  if (std::exchange(released_, true)) return;
  live_ = std::move(live);
  session_ = session;
  DeliverHeld();
}

// One at a time while the answers allow, as PacedLines hands over a read's lines: what a
// client sent during a slow start is no larger burst than one read (probe CS1).
void HeldInput::DeliverHeld() {
  while (!held_.empty()) {
    if (AnswersCongested()) {
      WhenAnswersAllow([this] { DeliverHeld(); });
      return;
    }
    const Held event = std::move(held_.front());
    held_.pop_front();
    held_bytes_ -= event.bytes.size();
    Deliver(event);
  }
  if (auto read = std::exchange(read_when_released_, nullptr)) ReadWhenAllowed(std::move(read));
}

bool HeldInput::AnswersCongested() const {
  return output_.Congested() ||
         (session_ != nullptr && session_->HeldAnswerBytes() > kPauseReadingAboveBytes);
}

void HeldInput::WhenAnswersAllow(std::function<void()> read) {
  if (output_.Congested() || session_ == nullptr) return output_.ReadWhenAllowed(std::move(read));
  session_->ReadWhenAnswersReleased(std::move(read));
}

bool HeldInput::Congested() const {
  if (AnswersCongested()) return true;
  if (released_) return !held_.empty();
  return Full();
}

void HeldInput::ReadWhenAllowed(std::function<void()> read) {
  if (AnswersCongested()) return WhenAnswersAllow(std::move(read));
  if (Congested()) {
    read_when_released_ = std::move(read);  // the session takes (or is taking) what is held
    return;
  }
  read();
}

void HeldInput::Take(Kind kind, std::string_view bytes) {
  held_bytes_ += bytes.size();
  held_.push_back({kind, std::string(bytes)});
}

bool HeldInput::AnsweredEarly(std::string_view line) {
  const rpc::ParsedLine parsed =
      rpc::ParseMessage(rpc::WithoutByteOrderMark(line), {.max_id_bytes = kMaxRequestIdBytes});
  if (!parsed.ok() || parsed.message->kind != rpc::MessageKind::kRequest ||
      parsed.message->method != "ping") {
    return false;
  }
  // Only a ping whose answer cannot depend on the session (held `initialize` first): no
  // params, or none in them. Params by position, a _meta or an agentId are the session's
  // to judge (tools/mcp_endpoint.h), in order.
  const std::string& params = parsed.message->params;
  std::vector<rpc::JsonMember> members;
  if (!params.empty() &&
      (rpc::ObjectMembers(params, &members) != rpc::JsonTextError::kNone || !members.empty())) {
    return false;
  }
  output_.Write(rpc::MakeResultResponse(parsed.message->id, "{}"));
  return true;
}

void HeldInput::Deliver(const Held& event) {
  switch (event.kind) {
    case Kind::kLine: return live_.on_line(event.bytes);
    case Kind::kTooLong: return live_.on_too_long(event.bytes);
    case Kind::kTooLongEnd:
      if (live_.on_too_long_end) live_.on_too_long_end(event.bytes);
      return;
    case Kind::kEof: return live_.on_eof();
    case Kind::kClosed:
      if (live_.on_closed) live_.on_closed();
      return;
  }
}

}  // namespace las::tools
