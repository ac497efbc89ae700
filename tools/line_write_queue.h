// LineWriteQueue: answer lines going out to one peer on the loop, in order, and the flow
// control that keeps a peer that does not read from growing Las's memory.
//
// Write() queues a line; one write is in flight at a time and takes every line queued when
// it starts (one system call for a burst of answers, not one per line). The owner supplies
// the write itself (an asynchronous write of a whole buffer to its stream, reporting
// success), so this header needs no Asio. After a failed write the peer is gone: what is
// queued is dropped, later lines are ignored, and WhenBroken's callbacks run — owners stop
// reading requests then, since no answer could reach the peer.
//
// Abandon() is for an owner that must end now (a second signal): what is unwritten is
// dropped, and so is every later line; a write in flight is left to finish or fail (owners
// that can cancel it do so), and WhenDrained no longer waits for it.
//
// Flow control: past kPauseReadingAboveBytes of unwritten answers, ReadWhenAllowed() holds
// the owner's next read until they are below kResumeReadingBelowBytes — a client that stops
// reading its answers stops being read, and its requests wait in its own pipe or socket.
// Owners check Congested() before each line (tools/paced_lines.h), so the backlog passes
// the mark by at most one answer.
//
// A daemon's connections also share an AnswerBudget (tools/answer_budget.h): past it, a
// queue holding more than its floor is congested too.
//
// Threading: loop thread only; callbacks run on the loop (WhenDrained's never inside the
// call that registered it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace las::tools {

class AnswerBudget;

inline constexpr size_t kPauseReadingAboveBytes = 8 << 20;
inline constexpr size_t kResumeReadingBelowBytes = 1 << 20;

class LineWriteQueue {
 public:
  // Writes all of `data`, then calls `done(ok)` on the loop.
  using AsyncWrite = std::function<void(const std::string& data, std::function<void(bool)> done)>;
  // Runs `task` on the loop later (never inside the caller).
  using Post = std::function<void(std::function<void()> task)>;

  LineWriteQueue(AsyncWrite write, Post post);
  ~LineWriteQueue();
  LineWriteQueue(const LineWriteQueue&) = delete;
  LineWriteQueue& operator=(const LineWriteQueue&) = delete;

  // Counts this queue's unwritten answers in `budget` (which must outlive it) from now on.
  void ShareBudget(AnswerBudget* budget);

  // Queues `line` plus '\n'.
  void Write(std::string line);
  // Runs `done` once every queued line has been written (or the peer is gone).
  void WhenDrained(std::function<void()> done);
  // Calls `read` at once if at most kPauseReadingAboveBytes are queued, else on the loop
  // once fewer than kResumeReadingBelowBytes are (or the peer is gone).
  void ReadWhenAllowed(std::function<void()> read);
  // Runs `lost` on the loop once a write has failed (at once, posted, if one already has).
  void WhenBroken(std::function<void()> lost);
  // Drops every line not yet written (queued, or in the write in flight) and every line
  // written later; runs WhenDrained's callbacks (posted) and from then on WhenDrained's at
  // once, and resumes held reads. If a line was dropped — now or later — broken() becomes
  // true and WhenBroken's callbacks run, as after a failed write: answers were not
  // delivered. A second call does nothing.
  void Abandon();

  // More than kPauseReadingAboveBytes unwritten (or more than the shared budget's floor
  // while the budget is spent), and the peer still there.
  bool Congested() const;
  size_t queued_bytes() const { return queued_bytes_; }
  // The memory held for lines: those queued and the buffer of the write in flight. Once
  // everything is written it is given back, so an idle peer does not keep its largest
  // burst of answers (probe JZ1: ~6 MB per connection after 48 pipelined handle reads).
  size_t held_bytes() const;
  bool broken() const { return broken_; }

 private:
  void Next();
  void ResumeReads();
  // Answers were lost: drop what is queued, run WhenBroken's callbacks.
  void Break();
  // queued_bytes_ becomes `after`; the shared budget learns of it.
  void SetQueuedBytes(size_t after);

  AsyncWrite write_;
  Post post_;
  std::vector<std::string> queue_;
  std::string in_flight_;
  size_t queued_bytes_ = 0;  // queued and in flight, not yet written
  AnswerBudget* budget_ = nullptr;
  bool writing_ = false;
  bool broken_ = false;
  bool abandoned_ = false;
  std::vector<std::function<void()>> drained_;
  std::vector<std::function<void()>> paused_reads_;
  std::vector<std::function<void()>> lost_;
};

}  // namespace las::tools
