#include "tools/held_answers.h"

#include <algorithm>
#include <utility>

#include "tools/answer_budget.h"

namespace las::tools {

HeldAnswers::HeldAnswers(Post post) : post_(std::move(post)) {}

HeldAnswers::~HeldAnswers() { ShareBudget(nullptr); }

void HeldAnswers::ShareBudget(AnswerBudget* budget) {
  if (budget_ != nullptr) budget_->Update(total_, 0);
  budget_ = budget;
  if (budget_ != nullptr) budget_->Update(0, total_);
}

void HeldAnswers::Hold(const std::string& session_id, size_t bytes) {
  sessions_[session_id].bytes += bytes;
  total_ += bytes;
  if (budget_ != nullptr) budget_->Update(0, bytes);
}

void HeldAnswers::Release(const std::string& session_id, size_t bytes) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  Session& session = it->second;
  const size_t released = std::min(bytes, session.bytes);
  session.bytes -= released;
  total_ -= released;
  if (budget_ != nullptr) budget_->Update(released, 0);
  for (auto& waiter : session.waiters) post_(std::move(waiter));
  if (session.bytes == 0) {
    sessions_.erase(it);
  } else {
    session.waiters.clear();
  }
}

size_t HeldAnswers::Bytes(const std::string& session_id) const {
  auto it = sessions_.find(session_id);
  return it == sessions_.end() ? 0 : it->second.bytes;
}

void HeldAnswers::WhenReleased(const std::string& session_id, std::function<void()> read) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return read();
  it->second.waiters.push_back(std::move(read));
}

}  // namespace las::tools
