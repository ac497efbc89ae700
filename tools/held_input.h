// The stdio session's input while the server starts (federation may take up to
// --start-timeout): stdin is read from the start, so that a `ping` — the one request MCP
// lets a client send before `initialize` is answered — is answered at once (probe BC1: a
// supervisor pinging for liveness was answered only once every child had started). Every
// other line, and stdin's end, wait in order until Release hands them, and all that
// follows, to the session. Held lines are bounded: past kMostHeldLines or kMostHeldBytes
// reading pauses, as it does for answers a client does not read (tools/paced_lines.h).
// The bytes bound is one read's worth, so the session takes no larger burst at Release
// than from any read: its appends are grouped by loop turn (tools/loop_appender.h), and
// one batch of everything a client sent during a slow start could outgrow what a read
// would have made. Release hands them over as a read's lines are, one at a time while the
// answers allow — unwritten, or decided and held for the log (tools/held_answers.h) —
// and reading resumes once all are taken.
//
// Use: StartStdinInput(io, max, held.Handlers()); later held.Release(session_handlers).
// Threading: the loop's thread only. Must outlive the input.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "tools/stdio_lines.h"

namespace las::tools {

class LineSession;

class HeldInput final : public LineOutput {
 public:
  static constexpr size_t kMostHeldLines = 256;
  static constexpr size_t kMostHeldBytes = 64 * 1024;

  // Early pings are answered on `output`, which must outlive this.
  explicit HeldInput(LineOutput& output);

  // The handlers to start the input with; their `answers` is this object, which passes
  // `output`'s flow control on and adds its own bound while lines are held.
  LineInputHandlers Handlers();
  // Calls `closed` if stdin closes while its lines are still held (before Release): with no
  // reader on stdout either, the client is gone and the start need not be waited for.
  void WhenClosedWhileHeld(std::function<void()> closed) { closed_while_held_ = std::move(closed); }
  // Whether lines the session would run or answer wait to be handed over
  // (McpEndpoint::OwesAnswer: not a notification, a response, or a line with no id).
  bool HoldsRequests() const;
  // Whether as many lines are held as may be (kMostHeldLines, kMostHeldBytes), so that
  // reading paused, before stdin's end was read: lines the client sent after them may not
  // have been looked at (probe HL1: stdin's end, held as events, counted as lines).
  bool StoppedShortOfTheEnd() const;
  // From now on the input goes to `live` (whose `answers` is ignored): first what was
  // held, in order, stdin's end included; and `session`'s answers held for the log count in
  // the flow control (LineSession::HeldAnswerBytes). Once; `session` must outlive the input.
  void Release(LineInputHandlers live, LineSession* session = nullptr);

  // LineOutput: `output`'s, with this bound added to its flow control.
  void Write(std::string line) override { output_.Write(std::move(line)); }
  void WhenDrained(std::function<void()> done) override { output_.WhenDrained(std::move(done)); }
  bool Congested() const override;
  void ReadWhenAllowed(std::function<void()> read) override;
  void Later(std::function<void()> next) override { output_.Later(std::move(next)); }
  bool Broken() const override { return output_.Broken(); }
  void WhenBroken(std::function<void()> lost) override { output_.WhenBroken(std::move(lost)); }
  void Abandon() override { output_.Abandon(); }
  void WhenReaderGone(std::function<void()> gone) override {
    output_.WhenReaderGone(std::move(gone));
  }

 private:
  enum class Kind { kLine, kTooLong, kTooLongEnd, kEof, kClosed };
  struct Held {
    Kind kind;
    std::string bytes;
  };
  void Take(Kind kind, std::string_view bytes);
  bool Full() const;  // the bounds reached: reading pauses
  // Released, and nothing held is left to hand over: events go straight to the session.
  bool Live() const { return released_ && held_.empty(); }
  void DeliverHeld();
  // The output's flow control and the session's answers held for the log.
  bool AnswersCongested() const;
  void WhenAnswersAllow(std::function<void()> read);
  // Answers `line` if it is a ping whose answer needs no session; false otherwise.
  bool AnsweredEarly(std::string_view line);
  void Deliver(const Held& event);

  LineOutput& output_;
  std::deque<Held> held_;
  size_t held_bytes_ = 0;
  bool released_ = false;
  LineSession* session_ = nullptr;
  LineInputHandlers live_;
  std::function<void()> read_when_released_;
  std::function<void()> closed_while_held_;
};

}  // namespace las::tools
