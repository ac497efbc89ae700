#include "tools/held_input.h"

#include <utility>
#include <vector>

#include "tools/mcp_endpoint.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"

namespace las::tools {

namespace rpc = transport;

HeldInput::HeldInput(LineOutput& output) : output_(output) {}

LineInputHandlers HeldInput::Handlers() {
  LineInputHandlers handlers;
  handlers.on_line = [this](std::string_view line) {
    if (released_) return live_.on_line(line);
    if (!AnsweredEarly(line)) Take(Kind::kLine, line);
  };
  handlers.on_too_long = [this](std::string_view prefix) {
    if (released_) return live_.on_too_long(prefix);
    Take(Kind::kTooLong, prefix);
  };
  handlers.on_too_long_end = [this](std::string_view tail) {
    if (!released_) return Take(Kind::kTooLongEnd, tail);
    if (live_.on_too_long_end) live_.on_too_long_end(tail);
  };
  handlers.on_eof = [this] {
    if (released_) return live_.on_eof();
    Take(Kind::kEof, {});
  };
  handlers.on_closed = [this] {
    if (!released_) return Take(Kind::kClosed, {});
    if (live_.on_closed) live_.on_closed();
  };
  handlers.answers = this;
  return handlers;
}

void HeldInput::Release(LineInputHandlers live) {
  if (std::exchange(released_, true)) return;
  live_ = std::move(live);
  std::deque<Held> held = std::move(held_);
  held_.clear();
  held_bytes_ = 0;
  for (const Held& event : held) Deliver(event);
  if (auto read = std::exchange(read_when_released_, nullptr)) output_.ReadWhenAllowed(std::move(read));
}

bool HeldInput::Congested() const {
  if (output_.Congested()) return true;
  return !released_ && (held_.size() >= kMostHeldLines || held_bytes_ >= kMostHeldBytes);
}

void HeldInput::ReadWhenAllowed(std::function<void()> read) {
  if (!released_ && Congested() && !output_.Congested()) {
    read_when_released_ = std::move(read);  // the session will take what is held
    return;
  }
  output_.ReadWhenAllowed(std::move(read));
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
