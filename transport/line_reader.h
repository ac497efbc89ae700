// Bounded line framing over a byte stream (newline-delimited JSON, stderr lines).
//
// Feed() takes bytes as they arrive and reports, in order, each complete line (without
// its '\n'). A line longer than `max_line_bytes` is reported once, as kTooLong carrying
// its first max_line_bytes bytes, the moment it grows past the limit; the rest of it is
// discarded up to and including its '\n', and framing goes on with the next line. The
// framer never holds more than max_line_bytes bytes. Empty lines are reported like any
// other line (the caller decides to skip them); '\r' is not special.
//
// set_partial_limit() bounds, below max_line_bytes, the partial line the framer holds
// between Feeds (one not yet ended by '\n'): a partial line that would be held past it is
// treated as over-long (kTooLong with what was held and as much of the new bytes as fits;
// the rest skipped up to its '\n'). A server sharing one memory budget among many peers
// lowers it as the budget fills. A line that ends within the bytes of one Feed is bounded
// by max_line_bytes only. After a line longer than kKeptCapacity the buffer's memory is
// given back, so a peer that sent one large line does not hold that much while idle.
//
// A framer made with `keep_tail_bytes` > 0 also reports the end of each over-long line, as
// kTooLongEnd carrying its last keep_tail_bytes bytes (without the '\n'): a member written
// after the bulk (a JSON-RPC id last) can still be read. An over-long line the stream
// ends inside gets no kTooLongEnd.
//
// Views handed to the callback are valid only during that call.
// Thread safety: none; one framer per stream, used by one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace las::transport {

struct LineEvent {
  enum class Kind {
    kLine,          // a complete line
    kTooLong,       // a line that exceeded the limit: `bytes` is its prefix
    kPartialAtEof,  // bytes after the last '\n' when the stream ended (Finish)
    kTooLongEnd,    // only with keep_tail_bytes: the last bytes of an over-long line
  };
  Kind kind;
  std::string_view bytes;
};

class LineFramer {
 public:
  using Sink = std::function<void(const LineEvent&)>;

  explicit LineFramer(size_t max_line_bytes, size_t keep_tail_bytes = 0);

  // Frames `data`, calling `sink` for each event. The sink may not call back into this
  // framer.
  void Feed(std::string_view data, const Sink& sink);
  // End of stream: reports a buffered partial line, if any (not if it was over-long and
  // already reported), then resets.
  void Finish(const Sink& sink);

  void set_partial_limit(size_t bytes) { partial_limit_ = bytes; }
  size_t buffered_bytes() const { return buffer_.size(); }
  static constexpr size_t kKeptCapacity = 64 * 1024;
  bool discarding() const { return discarding_; }
  size_t max_line_bytes() const { return max_; }

 private:
  void KeepTail(std::string_view piece);
  void EndTooLong(const Sink& sink);

  size_t max_;
  size_t partial_limit_ = static_cast<size_t>(-1);
  size_t keep_tail_;
  std::string buffer_;
  std::string tail_;         // the last keep_tail_ bytes of the over-long line so far
  bool discarding_ = false;  // inside an over-long line, skipping to its '\n'
};

}  // namespace las::transport
