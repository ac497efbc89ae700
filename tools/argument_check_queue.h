// ArgumentCheckQueue: the large tool-call arguments waiting for their schema check off the
// loop (GatewayOptions::offload_validation_bytes), and the large results waiting to be read
// (parsed, scanned for credentials). Checks go to the runner one at a time,
// taken from the sessions in turn, so one agent's many large calls cannot hold up another
// agent's (in `las daemon` one loop and one worker serve them all, and a check may take
// seconds). At most `per_session` argument checks may wait per session and `in_all` in all
// (each holds a copy of up to 1 MiB of arguments; results' readings are not bounded:
// Check::bounded); a waiting check can be withdrawn (its call was
// cancelled, the server is going away) and then never runs.
//
// Threading: every member on the loop's thread. A check's `run` runs on the runner's
// thread and must own what it reads; its `done` is then posted back to the loop, and is
// dropped if the queue is gone by then.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tools/worker_thread.h"

namespace las::tools {

class ArgumentCheckQueue {
 public:
  using Id = uint64_t;  // never 0
  using PostToLoop = std::function<void(std::function<void()>)>;
  struct Check {
    std::function<void()> run;   // off the loop
    std::function<void()> done;  // on the loop, after `run`
    // False for a large result's reading: it holds only what the loop already holds (the
    // result), and its call was made, so it can be neither refused nor put off. It waits
    // its turn but neither counts toward the bounds nor is refused by them (probe BJ2: a
    // session's results waiting had its large calls refused "too-many-checks").
    bool bounded = true;
  };

  ArgumentCheckQueue(OffLoopRunner run_off_loop, PostToLoop post_to_loop, size_t per_session,
                     size_t in_all);
  ArgumentCheckQueue(const ArgumentCheckQueue&) = delete;
  ArgumentCheckQueue& operator=(const ArgumentCheckQueue&) = delete;

  // Queues `check` for `session` and returns its id; 0 (nothing queued) when it is bounded
  // and the session already has `per_session` bounded checks waiting, or `in_all` wait.
  Id Add(const std::string& session, Check check);
  // True if `id` was waiting: it is dropped and neither its `run` nor its `done` is ever
  // called. False for a check that is running or over.
  bool Withdraw(Id id);
  // The id of the check that is running, or 0.
  Id running() const { return running_; }
  size_t waiting() const { return session_of_.size(); }  // bounded or not

 private:
  void StartNext();
  // Takes `id`, waiting in `checks` (of `session`) at `at`, out of the waiting ones.
  void Forget(const std::string& session, std::deque<std::pair<Id, Check>>& checks,
              std::deque<std::pair<Id, Check>>::iterator at);

  OffLoopRunner run_off_loop_;
  PostToLoop post_to_loop_;
  size_t per_session_;
  size_t in_all_;
  Id next_id_ = 1;
  Id running_ = 0;
  std::map<std::string, std::deque<std::pair<Id, Check>>> waiting_;  // by session
  std::map<Id, std::string> session_of_;                             // waiting ids
  std::map<std::string, size_t> bounded_of_;  // bounded checks waiting, by session (> 0)
  size_t bounded_in_all_ = 0;
  std::string last_served_;  // the session whose check ran last: the next one follows it
  // Expires with the queue: a `done` that comes back after it is dropped.
  std::shared_ptr<char> alive_ = std::make_shared<char>();
};

}  // namespace las::tools
