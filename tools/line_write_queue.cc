#include "tools/line_write_queue.h"

#include <utility>

namespace las::tools {

LineWriteQueue::LineWriteQueue(AsyncWrite write, Post post)
    : write_(std::move(write)), post_(std::move(post)) {}

void LineWriteQueue::Write(std::string line) {
  if (broken_) return;
  if (abandoned_) {  // it will never be written
    Break();
    return;
  }
  line.push_back('\n');
  queued_bytes_ += line.size();
  queue_.push_back(std::move(line));
  if (!writing_) Next();
}

void LineWriteQueue::WhenDrained(std::function<void()> done) {
  if (!writing_ || abandoned_) {
    post_(std::move(done));
  } else {
    drained_.push_back(std::move(done));
  }
}

void LineWriteQueue::ReadWhenAllowed(std::function<void()> read) {
  if (!Congested()) {
    read();
  } else {
    paused_reads_.push_back(std::move(read));
  }
}

void LineWriteQueue::WhenBroken(std::function<void()> lost) {
  if (broken_) {
    post_(std::move(lost));
  } else {
    lost_.push_back(std::move(lost));
  }
}

void LineWriteQueue::Abandon() {
  if (std::exchange(abandoned_, true)) return;
  if (queued_bytes_ > 0) Break();  // queued, or in the write in flight
  for (auto& done : drained_) post_(std::move(done));
  drained_.clear();
  ResumeReads();
}

void LineWriteQueue::Break() {
  if (broken_) return;
  broken_ = true;
  for (const auto& line : queue_) queued_bytes_ -= line.size();
  queue_.clear();
  for (auto& lost : lost_) post_(std::move(lost));
  lost_.clear();
}

void LineWriteQueue::Next() {
  if (queue_.empty()) {
    writing_ = false;
    for (auto& done : drained_) post_(std::move(done));
    drained_.clear();
    return;
  }
  writing_ = true;
  in_flight_.clear();
  if (queue_.size() == 1) {
    in_flight_ = std::move(queue_.front());
  } else {
    size_t total = 0;
    for (const auto& line : queue_) total += line.size();
    in_flight_.reserve(total);
    for (const auto& line : queue_) in_flight_ += line;
  }
  queue_.clear();
  write_(in_flight_, [this](bool ok) {
    queued_bytes_ -= in_flight_.size();
    if (!ok) Break();  // the peer is gone: drop what is left
    ResumeReads();
    Next();
  });
}

void LineWriteQueue::ResumeReads() {
  if (paused_reads_.empty()) return;
  if (queued_bytes_ >= kResumeReadingBelowBytes && !broken_ && !abandoned_) return;
  for (auto& read : paused_reads_) post_(std::move(read));
  paused_reads_.clear();
}

}  // namespace las::tools
