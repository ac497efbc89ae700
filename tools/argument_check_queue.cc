#include "tools/argument_check_queue.h"

#include <algorithm>

namespace las::tools {

ArgumentCheckQueue::ArgumentCheckQueue(OffLoopRunner run_off_loop, PostToLoop post_to_loop,
                                       size_t per_session, size_t in_all)
    : run_off_loop_(std::move(run_off_loop)), post_to_loop_(std::move(post_to_loop)),
      per_session_(per_session), in_all_(in_all) {}

ArgumentCheckQueue::Id ArgumentCheckQueue::Add(const std::string& session, Check check) {
  if (check.bounded) {
    if (bounded_in_all_ >= in_all_) return 0;
    auto counted = bounded_of_.find(session);
    if (counted != bounded_of_.end() && counted->second >= per_session_) return 0;
    ++bounded_of_[session];
    ++bounded_in_all_;
  }
  const Id id = next_id_++;
  waiting_[session].emplace_back(id, std::move(check));
  session_of_.emplace(id, session);
  StartNext();
  return id;
}

bool ArgumentCheckQueue::Withdraw(Id id) {
  auto owner = session_of_.find(id);
  if (owner == session_of_.end()) return false;
  const std::string session = owner->second;
  auto& checks = waiting_.find(session)->second;
  Forget(session, checks,
         std::find_if(checks.begin(), checks.end(),
                      [id](const auto& entry) { return entry.first == id; }));
  return true;
}

void ArgumentCheckQueue::Forget(const std::string& session,
                                std::deque<std::pair<Id, Check>>& checks,
                                std::deque<std::pair<Id, Check>>::iterator at) {
  session_of_.erase(at->first);
  if (at->second.bounded) {
    --bounded_in_all_;
    if (auto counted = bounded_of_.find(session); --counted->second == 0) {
      bounded_of_.erase(counted);
    }
  }
  checks.erase(at);
  if (checks.empty()) waiting_.erase(session);
}

void ArgumentCheckQueue::StartNext() {
  if (running_ != 0 || waiting_.empty()) return;
  // The first session after the one served last, wrapping around.
  auto turn = waiting_.upper_bound(last_served_);
  if (turn == waiting_.end()) turn = waiting_.begin();
  last_served_ = turn->first;
  auto [id, check] = std::move(turn->second.front());
  Forget(last_served_, turn->second, turn->second.begin());
  running_ = id;
  run_off_loop_([this, alive = std::weak_ptr<char>(alive_), post = post_to_loop_,
                 run = std::move(check.run), done = std::move(check.done)]() mutable {
    run();
    post([this, alive = std::move(alive), done = std::move(done)] {
      if (alive.expired()) return;  // the queue went before its loop ran this
      running_ = 0;
      done();
      StartNext();
    });
  });
}

}  // namespace las::tools
