// HeldAnswers: per session, the bytes of answers that are decided but may not be written
// yet — a Las tool's answer waits until what it read is on disk (Gateway::CallBuiltin).
// They are not in the session's output yet, so its flow control (tools/line_write_queue.h)
// cannot see them: a client that sends many requests in one read while a write of the log
// is queued had every answer decided and held at once (probe CS1: 400 las__handle_read
// answers, 157 MB, and every other session waited for the loop). A session's input counts
// them as unwritten answers (tools/line_session.h): past kPauseReadingAboveBytes of them it
// takes no further line, and in a daemon they count in the connections' shared
// AnswerBudget too (tools/answer_budget.h; probe CV1: without, each connection held 8 MB
// whatever the budget said).
//
// Threading: loop thread only; waiters run posted on the loop, never inside Release.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace las::tools {

class AnswerBudget;

class HeldAnswers {
 public:
  // Runs `task` on the loop later (never inside the caller).
  using Post = std::function<void(std::function<void()> task)>;
  explicit HeldAnswers(Post post);
  ~HeldAnswers();
  HeldAnswers(const HeldAnswers&) = delete;
  HeldAnswers& operator=(const HeldAnswers&) = delete;

  // Counts every held byte in `budget` (null: none) from now on; it must outlive this, or
  // be replaced first.
  void ShareBudget(AnswerBudget* budget);

  void Hold(const std::string& session_id, size_t bytes);
  // `bytes` held by an earlier Hold for the session are no longer held: its waiters run.
  void Release(const std::string& session_id, size_t bytes);
  size_t Bytes(const std::string& session_id) const;
  // `read` at once when nothing is held for the session, else posted at its next Release
  // (the reader looks again then).
  void WhenReleased(const std::string& session_id, std::function<void()> read);

 private:
  struct Session {
    size_t bytes = 0;
    std::vector<std::function<void()>> waiters;
  };
  Post post_;
  std::unordered_map<std::string, Session> sessions_;
  size_t total_ = 0;  // of every session
  AnswerBudget* budget_ = nullptr;
};

}  // namespace las::tools
