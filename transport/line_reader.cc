#include "transport/line_reader.h"

#include <algorithm>

namespace las::transport {

LineFramer::LineFramer(size_t max_line_bytes, size_t keep_tail_bytes)
    : max_(max_line_bytes), keep_tail_(keep_tail_bytes) {}

void LineFramer::Feed(std::string_view data, const Sink& sink) {
  while (!data.empty()) {
    if (discarding_) {
      size_t nl = data.find('\n');
      KeepTail(data.substr(0, nl));
      if (nl == std::string_view::npos) return;  // all of it belongs to the long line
      data.remove_prefix(nl + 1);
      discarding_ = false;
      EndTooLong(sink);
      continue;
    }
    size_t nl = data.find('\n');
    size_t piece = nl == std::string_view::npos ? data.size() : nl;
    const size_t limit = nl == std::string_view::npos ? std::min(max_, partial_limit_) : max_;
    if (buffer_.size() + piece > limit) {
      // Over the limit: report the prefix once, then skip the rest of the line.
      size_t take = limit > buffer_.size() ? limit - buffer_.size() : 0;
      buffer_.append(data.data(), take);
      sink(LineEvent{LineEvent::Kind::kTooLong, buffer_});
      KeepTail(buffer_);
      KeepTail(data.substr(take, piece - take));
      buffer_.clear();
      buffer_.shrink_to_fit();
      if (nl == std::string_view::npos) {
        discarding_ = true;
        return;
      }
      data.remove_prefix(nl + 1);
      EndTooLong(sink);
      continue;
    }
    if (nl == std::string_view::npos) {
      buffer_.append(data);
      return;
    }
    if (buffer_.empty()) {
      sink(LineEvent{LineEvent::Kind::kLine, data.substr(0, nl)});  // no copy
    } else {
      buffer_.append(data.data(), nl);
      sink(LineEvent{LineEvent::Kind::kLine, buffer_});
      buffer_.clear();
      if (buffer_.capacity() > kKeptCapacity) buffer_.shrink_to_fit();
    }
    data.remove_prefix(nl + 1);
  }
}

void LineFramer::KeepTail(std::string_view piece) {
  if (keep_tail_ == 0) return;
  if (piece.size() >= keep_tail_) {
    tail_.assign(piece.substr(piece.size() - keep_tail_));
    return;
  }
  tail_.append(piece);
  if (tail_.size() > keep_tail_) tail_.erase(0, tail_.size() - keep_tail_);
}

void LineFramer::EndTooLong(const Sink& sink) {
  if (keep_tail_ == 0) return;
  sink(LineEvent{LineEvent::Kind::kTooLongEnd, tail_});
  tail_.clear();
}

void LineFramer::Finish(const Sink& sink) {
  if (!discarding_ && !buffer_.empty()) {
    sink(LineEvent{LineEvent::Kind::kPartialAtEof, buffer_});
  }
  buffer_.clear();
  tail_.clear();
  discarding_ = false;
}

}  // namespace las::transport
