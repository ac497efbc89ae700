#include "tools/line_session.h"

#include "tools/gateway.h"
#include "tools/stdio_lines.h"

namespace las::tools {

LineSession::LineSession(Gateway& gateway, EndpointOptions options, LineOutput& output)
    : gateway_(gateway), output_(output) {
  endpoint_ = std::make_unique<McpEndpoint>(
      std::move(options), gateway_, [this](std::string line) { output_.Write(std::move(line)); });
  endpoint_->set_on_idle([this] { MaybeFinish(); });
  endpoint_->set_output_congested([this] { return output_.Congested(); });
}

LineSession::~LineSession() = default;

void LineSession::OnLine(std::string_view line) {
  if (!input_ended_) endpoint_->OnLine(line);
}

void LineSession::OnTooLong(std::string_view prefix) {
  if (!input_ended_) endpoint_->OnOversizedLine(prefix);
}

void LineSession::OnTooLongEnd(std::string_view tail) {
  if (!input_ended_) endpoint_->OnOversizedLineEnd(tail);
}

void LineSession::EndInput(std::function<std::string()> reason, std::function<void()> closed) {
  if (input_ended_) return;
  input_ended_ = true;
  reason_ = std::move(reason);
  closed_ = std::move(closed);
  MaybeFinish();
}

size_t LineSession::HeldAnswerBytes() const {
  const auto& session = endpoint_->session();
  return session ? gateway_.held_answers().Bytes(session->session_id) : 0;
}

void LineSession::ReadWhenAnswersReleased(std::function<void()> read) {
  const auto& session = endpoint_->session();
  if (!session) return read();
  gateway_.held_answers().WhenReleased(session->session_id, std::move(read));
}

void LineSession::MaybeFinish() {
  if (!input_ended_ || finishing_ || endpoint_->in_flight() > 0) return;
  finishing_ = true;
  output_.WhenDrained([this] {
    const std::string reason = reason_ ? reason_() : std::string("eof");
    if (endpoint_->session()) {
      gateway_.CloseSession(*endpoint_->session(), reason, closed_);
    } else {
      closed_();
    }
  });
}

}  // namespace las::tools
