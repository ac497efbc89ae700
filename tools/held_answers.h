// HeldAnswers: per session, the bytes of answers that are decided but may not be written
// yet — a Las tool's answer waits until what it read is on disk (Gateway::CallBuiltin).
// They are not in the session's output yet, so its flow control (tools/line_write_queue.h)
// cannot see them: a client that sends many requests in one read while a write of the log
// is queued had every answer decided and held at once (probe CS1: 400 las__handle_read
// answers, 157 MB, and every other session waited for the loop). A session's input counts
// them as it counts unwritten answers (tools/line_session.h): past kPauseReadingAboveBytes
// it takes no further line until they are down to kResumeReadingBelowBytes.
//
// Threading: loop thread only; waiters run posted on the loop, never inside Release.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace las::tools {

class HeldAnswers {
 public:
  // Runs `task` on the loop later (never inside the caller).
  using Post = std::function<void(std::function<void()> task)>;
  explicit HeldAnswers(Post post);

  void Hold(const std::string& session_id, size_t bytes);
  // `bytes` held by an earlier Hold for the session are no longer held.
  void Release(const std::string& session_id, size_t bytes);
  // More than kPauseReadingAboveBytes held for the session.
  bool Over(const std::string& session_id) const;
  // `read` at once unless Over, else posted once at most kResumeReadingBelowBytes are held.
  void WhenAllowed(const std::string& session_id, std::function<void()> read);

 private:
  struct Session {
    size_t bytes = 0;
    std::vector<std::function<void()>> waiters;
  };
  Post post_;
  std::unordered_map<std::string, Session> sessions_;
};

}  // namespace las::tools
