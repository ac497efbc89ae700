#include "transport/line_reader.h"

#include <algorithm>

namespace las::transport {

LineFramer::LineFramer(size_t max_line_bytes) : max_(max_line_bytes) {}

void LineFramer::Feed(std::string_view data, const Sink& sink) {
  while (!data.empty()) {
    if (discarding_) {
      size_t nl = data.find('\n');
      if (nl == std::string_view::npos) return;  // all of it belongs to the long line
      data.remove_prefix(nl + 1);
      discarding_ = false;
      continue;
    }
    size_t nl = data.find('\n');
    size_t piece = nl == std::string_view::npos ? data.size() : nl;
    if (buffer_.size() + piece > max_) {
      // Over the limit: report the prefix once, then skip the rest of the line.
      size_t take = max_ - buffer_.size();
      buffer_.append(data.data(), take);
      sink(LineEvent{LineEvent::Kind::kTooLong, buffer_});
      buffer_.clear();
      buffer_.shrink_to_fit();
      if (nl == std::string_view::npos) {
        discarding_ = true;
        return;
      }
      data.remove_prefix(nl + 1);
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
    }
    data.remove_prefix(nl + 1);
  }
}

void LineFramer::Finish(const Sink& sink) {
  if (!discarding_ && !buffer_.empty()) {
    sink(LineEvent{LineEvent::Kind::kPartialAtEof, buffer_});
  }
  buffer_.clear();
  discarding_ = false;
}

}  // namespace las::transport
