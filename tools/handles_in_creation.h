// Handles whose HandleCreated is on its way to the log: appended, not yet durable and
// folded into the live handles projection. One per server, shared by every path that
// creates a handle — the state, message and handle tools (tools/coordination.h) and the
// gateway for large child results (tools/gateway.h) — so that one content reaching one
// agent by two paths at once is stored once, and an answer naming a handle another
// append is taking to disk waits for that append.
//
// Threading: loop thread only.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace las::tools {

class LiveProjections;

class HandlesInCreation {
 public:
  // `stored(id)`: whether the log holds the handle (the live handles projection).
  explicit HandlesInCreation(std::function<bool(std::string_view handle_id)> stored)
      : stored_(std::move(stored)) {}

  bool Stored(std::string_view handle_id) const { return stored_(handle_id); }
  bool Creating(std::string_view handle_id) const { return creating_.count(handle_id) != 0; }
  // Neither stored nor being created: the caller must store it, and calls Begin first.
  bool Absent(std::string_view handle_id) const {
    return !Creating(handle_id) && !Stored(handle_id);
  }

  // The caller's append carries this handle's HandleCreated.
  void Begin(std::string handle_id) { creating_.insert(std::move(handle_id)); }

  // After an append that carried some (ok: durable and folded): forgets the handles the log
  // now holds, then runs each waiter whose handles are all stored (every waiter when !ok:
  // after a failed append the log refuses every later one).
  void Settled(bool ok);

  // Runs `then(true)` once none of `handle_ids` is being created — at once when none is —
  // or `then(false)` when an append fails first.
  void AwaitStored(std::vector<std::string> handle_ids, std::function<void(bool)> then);

 private:
  struct Waiter {
    std::vector<std::string> handle_ids;
    std::function<void(bool)> then;
  };
  std::function<bool(std::string_view)> stored_;
  std::set<std::string, std::less<>> creating_;
  std::vector<Waiter> waiters_;
};

// A server's `stored`: whether its live handles projection holds the handle. `live` must
// outlive the function.
std::function<bool(std::string_view handle_id)> HandlesStoredIn(const LiveProjections& live);

}  // namespace las::tools
