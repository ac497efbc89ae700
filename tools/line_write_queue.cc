#include "tools/line_write_queue.h"

#include <utility>

#include "tools/answer_budget.h"
#include "transport/line_breaks.h"

namespace las::tools {

LineWriteQueue::LineWriteQueue(AsyncWrite write, Post post)
    : write_(std::move(write)), post_(std::move(post)) {}

LineWriteQueue::~LineWriteQueue() {
  if (budget_ != nullptr) budget_->Update(queued_bytes_, 0);
}

void LineWriteQueue::ShareBudget(AnswerBudget* budget) {
  if (budget_ != nullptr) budget_->Update(queued_bytes_, 0);
  budget_ = budget;
  if (budget_ != nullptr) budget_->Update(0, queued_bytes_);
}

bool LineWriteQueue::Congested() const {
  if (broken_ || abandoned_) return false;
  return queued_bytes_ > kPauseReadingAboveBytes ||
         (budget_ != nullptr && budget_->Holds(queued_bytes_));
}

void LineWriteQueue::SetQueuedBytes(size_t after) {
  if (budget_ != nullptr) budget_->Update(queued_bytes_, after);
  queued_bytes_ = after;
}

void LineWriteQueue::Write(std::string line) {
  if (broken_) return;
  if (abandoned_) {  // it will never be written
    Break();
    return;
  }
  transport::EscapeLineBreaksOfOtherReaders(line);  // a child's result as written (probe JO1)
  line.push_back('\n');
  SetQueuedBytes(queued_bytes_ + line.size());
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
  for (const auto& line : queue_) SetQueuedBytes(queued_bytes_ - line.size());
  queue_.clear();
  for (auto& lost : lost_) post_(std::move(lost));
  lost_.clear();
}

size_t LineWriteQueue::held_bytes() const {
  size_t held = in_flight_.capacity();
  for (const auto& line : queue_) held += line.capacity();
  return held;
}

void LineWriteQueue::Next() {
  if (queue_.empty()) {
    writing_ = false;
    std::string().swap(in_flight_);
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
    SetQueuedBytes(queued_bytes_ - in_flight_.size());
    if (!ok) Break();  // the peer is gone: drop what is left
    ResumeReads();
    Next();
  });
}

void LineWriteQueue::ResumeReads() {
  if (paused_reads_.empty()) return;
  const bool held = queued_bytes_ >= kResumeReadingBelowBytes ||
                    (budget_ != nullptr && budget_->Holds(queued_bytes_));
  if (held && !broken_ && !abandoned_) return;
  for (auto& read : paused_reads_) post_(std::move(read));
  paused_reads_.clear();
}

}  // namespace las::tools
