// Line I/O for the stdio server: stdin lines into the loop, response lines out to stdout.
//
// On pipes and sockets (how MCP clients connect) both sides run on the io_context itself:
// no extra threads and no thread hop per message. On anything else — a terminal, a regular
// file — a reader thread and a writer thread do blocking I/O instead, so any stdin works
// and a terminal is never switched to non-blocking mode under the user's shell. Nor is a
// pipe or socket that others share (tools/loop_stdio_fd.h).
//
// Threading: create, write and receive callbacks on the loop's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace las::tools {

class LineOutput {
 public:
  virtual ~LineOutput() = default;
  // Queues one line (a '\n' is added); lines go out whole and in order.
  virtual void Write(std::string line) = 0;
  // Runs `done` on the loop once every queued line has been written (or the peer is gone).
  virtual void WhenDrained(std::function<void()> done) = 0;
  // Flow control (tools/line_write_queue.h): whether too many answers are unwritten to
  // take another request, and `read` called at once or, while congested, later on the
  // loop. Outputs without a backlog limit are never congested.
  virtual bool Congested() const { return false; }
  virtual void ReadWhenAllowed(std::function<void()> read) { read(); }
  // Runs `next` on the loop after what already waits there (the other connections' reads
  // and answers): how a peer's input yields its turn (tools/paced_lines.h). Outputs of a
  // server with one peer run it at once.
  virtual void Later(std::function<void()> next) { next(); }
  // Bytes of answers queued or being written, not yet written.
  virtual size_t unwritten_bytes() const { return 0; }
  // Whether a write failed (the peer is gone or the output is full): answers from then on
  // were dropped.
  virtual bool Broken() const { return false; }
  // Runs `lost` on the loop once a write has failed; outputs that cannot fail never do.
  virtual void WhenBroken(std::function<void()> lost) { (void)lost; }
  // The server must end now (a second signal): answers not yet written, and any written
  // later, are dropped (Broken() from then on if any were), and WhenDrained stops waiting
  // for a peer that does not read (tools/line_write_queue.h). A write in flight on a pipe or
  // socket is cancelled; one blocked on a terminal or file is left to its thread.
  virtual void Abandon() {}
  // Runs `gone` on the loop once the output reports, without being written to, that no one
  // can read it any more: a pipe whose read end is closed everywhere (POLLERR), a socket
  // whose peer closed it (POLLHUP). Only outputs on the loop (pipes, sockets) can tell;
  // others never run it. It does not make the output Broken(): an answer written later
  // fails as it would have.
  virtual void WhenReaderGone(std::function<void()> gone) { (void)gone; }
};

// Once `answers` is broken no answer can reach the client, so the input stops: lines read
// after that are dropped (never run), and `on_eof` follows — at once on a pipe or socket,
// after the read in progress on a terminal or file. Stdin is still read to its end then
// (and what it brings discarded), only so that `on_closed` can tell when the client has
// closed it.
struct LineInputHandlers {
  std::function<void(std::string_view line)> on_line;
  std::function<void(std::string_view prefix)> on_too_long;
  // Then, when that line ends, its last bytes (tools/paced_lines.h). May be null.
  std::function<void(std::string_view tail)> on_too_long_end;
  // The input ended for the session: stdin's end, or the answers were lost. Once.
  std::function<void()> on_eof;
  // Stdin itself reached its end (EOF or a read error), after on_eof. Once; may be null.
  std::function<void()> on_closed;
  // The output whose unwritten answers hold the next line (tools/paced_lines.h); null:
  // never held. Must outlive the input.
  LineOutput* answers = nullptr;
};

class LineInput {
 public:
  virtual ~LineInput() = default;
  // Whether lines were read that were never handed to the handlers: still waiting behind
  // the flow control, or dropped once the answers were lost (loop thread only).
  virtual bool LeftLinesUnhanded() const = 0;
};

std::unique_ptr<LineOutput> MakeStdoutOutput(boost::asio::io_context& io);
// Starts reading stdin at once; handlers run on the loop. The input must be destroyed only
// after the loop stopped running.
std::unique_ptr<LineInput> StartStdinInput(boost::asio::io_context& io, size_t max_line_bytes,
                                           LineInputHandlers handlers);

}  // namespace las::tools
