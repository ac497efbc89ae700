#include "tools/handles_in_creation.h"

#include <algorithm>

#include "projections/handles_projection.h"
#include "tools/live_projections.h"

namespace las::tools {

std::function<bool(std::string_view)> HandlesStoredIn(const LiveProjections& live) {
  return [&live](std::string_view handle_id) {
    const auto& stored = live.Get<projections::HandlesProjection>("handles")->handles();
    return stored.by_id.find(handle_id) != stored.by_id.end();
  };
}

void HandlesInCreation::Settled(bool ok) {
  std::erase_if(creating_, [this](const std::string& id) { return Stored(id); });
  std::vector<std::function<void(bool)>> ready;
  std::erase_if(waiters_, [&](Waiter& waiter) {
    const bool stored = std::none_of(waiter.handle_ids.begin(), waiter.handle_ids.end(),
                                     [this](const std::string& id) { return Creating(id); });
    if (ok && !stored) return false;
    ready.push_back(std::move(waiter.then));
    return true;
  });
  // Called after the list is settled: an answer may append again.
  for (auto& then : ready) then(ok);
}

void HandlesInCreation::AwaitStored(std::vector<std::string> handle_ids,
                                    std::function<void(bool)> then) {
  std::erase_if(handle_ids, [this](const std::string& id) { return !Creating(id); });
  if (handle_ids.empty()) {
    then(true);
    return;
  }
  waiters_.push_back({std::move(handle_ids), std::move(then)});
}

}  // namespace las::tools
