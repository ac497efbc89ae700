// PacedLines: one peer's input lines handed to its session one at a time, while the peer's
// answers allow (LineOutput::Congested, tools/line_write_queue.h). A read of up to 64 KiB
// can hold a thousand small requests whose answers are large (tools/list); handing them
// over all at once would let the backlog pass the pause mark by all their answers. Paced,
// it passes the mark by at most one answer, and the next read is made only once every line
// read so far has been handed over. And at most kLinesPerTurn lines go at once: then the
// rest waits for LineOutput::Later, so that one peer's 64 KiB of small requests (1,500
// pings, ~30 ms of the loop) does not hold every other connection of a daemon meanwhile.
//
// Threading: loop thread only. `resume` (Feed) must keep the owner alive while the pause
// lasts; it is called on the loop.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "tools/stdio_lines.h"
#include "transport/line_reader.h"

namespace las::tools {

// Enough for a request id of kMaxRequestIdBytes (tools/mcp_endpoint.h) with its member
// name, separators and some whitespace after it.
inline constexpr size_t kOverlongLineTailBytes = 1024;

// How many lines one peer hands over before the loop serves what else waits.
inline constexpr size_t kLinesPerTurn = 64;

class PacedLines {
 public:
  // `deliver` gets each line in order; for an over-long one, its prefix (kTooLong) and
  // later its last kOverlongLineTailBytes (kTooLongEnd), where a client that writes its id
  // last put the id (transport/line_reader.h).
  PacedLines(size_t max_line_bytes, std::function<void(const transport::LineEvent&)> deliver);

  // Frames `data` and hands its lines over while `answers` is not congested (null: never
  // held); once all are handed over calls `read_more` (at once, or on the loop after a
  // pause, through `answers->ReadWhenAllowed`).
  void Feed(std::string_view data, LineOutput* answers, std::function<void()> read_more);
  // End of the input: hands over a partial last line, if any (nothing is pending then:
  // reads stop while lines wait).
  void Finish();

  // The partial line held between Feeds, and its bound (transport::LineFramer).
  size_t buffered_bytes() const { return framer_.buffered_bytes(); }
  // Everything held: the partial line and the whole lines waiting to be handed over (a
  // shared memory budget counts both: probe DG1, 4 MiB lines parked on every connection).
  size_t held_bytes() const { return framer_.buffered_bytes() + pending_bytes_; }
  void set_partial_limit(size_t bytes) { framer_.set_partial_limit(bytes); }

 private:
  struct Pending {
    transport::LineEvent::Kind kind;
    std::string bytes;
  };
  void Pump(LineOutput* answers, std::function<void()> read_more);

  transport::LineFramer framer_;
  std::function<void(const transport::LineEvent&)> deliver_;
  std::deque<Pending> pending_;
  size_t pending_bytes_ = 0;
  size_t handed_this_turn_ = 0;
};

}  // namespace las::tools
