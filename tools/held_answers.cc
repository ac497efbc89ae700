#include "tools/held_answers.h"

#include <algorithm>
#include <utility>

#include "tools/line_write_queue.h"

namespace las::tools {

HeldAnswers::HeldAnswers(Post post) : post_(std::move(post)) {}

void HeldAnswers::Hold(const std::string& session_id, size_t bytes) {
  sessions_[session_id].bytes += bytes;
}

void HeldAnswers::Release(const std::string& session_id, size_t bytes) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  Session& session = it->second;
  session.bytes -= std::min(bytes, session.bytes);
  if (session.bytes > kResumeReadingBelowBytes) return;
  for (auto& waiter : session.waiters) post_(std::move(waiter));
  if (session.bytes == 0) {
    sessions_.erase(it);
  } else {
    session.waiters.clear();
  }
}

bool HeldAnswers::Over(const std::string& session_id) const {
  auto it = sessions_.find(session_id);
  return it != sessions_.end() && it->second.bytes > kPauseReadingAboveBytes;
}

void HeldAnswers::WhenAllowed(const std::string& session_id, std::function<void()> read) {
  if (!Over(session_id)) {
    read();
    return;
  }
  sessions_[session_id].waiters.push_back(std::move(read));
}

}  // namespace las::tools
