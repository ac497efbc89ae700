#include "tools/paced_lines.h"

#include <utility>

namespace las::tools {

PacedLines::PacedLines(size_t max_line_bytes,
                       std::function<void(const transport::LineEvent&)> deliver)
    : framer_(max_line_bytes, kOverlongLineTailBytes), deliver_(std::move(deliver)) {}

void PacedLines::Feed(std::string_view data, LineOutput* answers,
                      std::function<void()> read_more) {
  handed_this_turn_ = 0;
  framer_.Feed(data, [&](const transport::LineEvent& event) {
    // Handed over at once while nothing waits, the answers allow and the turn lasts; kept
    // (a copy) only from the first line that must wait.
    if (pending_.empty() &&
        (answers == nullptr || (!answers->Congested() && handed_this_turn_ < kLinesPerTurn))) {
      ++handed_this_turn_;
      deliver_(event);
    } else {
      pending_.push_back({event.kind, std::string(event.bytes)});
      pending_bytes_ += event.bytes.size();
    }
  });
  Pump(answers, std::move(read_more));
}

void PacedLines::Pump(LineOutput* answers, std::function<void()> read_more) {
  while (!pending_.empty()) {
    if (answers != nullptr && answers->Congested()) {
      answers->ReadWhenAllowed([this, answers, read_more = std::move(read_more)]() mutable {
        Pump(answers, std::move(read_more));
      });
      return;
    }
    if (answers != nullptr && handed_this_turn_ >= kLinesPerTurn) {
      answers->Later([this, answers, read_more = std::move(read_more)]() mutable {
        handed_this_turn_ = 0;
        Pump(answers, std::move(read_more));
      });
      return;
    }
    ++handed_this_turn_;
    const Pending line = std::move(pending_.front());
    pending_.pop_front();
    pending_bytes_ -= line.bytes.size();
    deliver_({line.kind, line.bytes});
  }
  read_more();
}

void PacedLines::Finish() {
  framer_.Finish([&](const transport::LineEvent& event) { deliver_(event); });
}

}  // namespace las::tools
