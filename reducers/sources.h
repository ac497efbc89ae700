// The sources reducer: which sources an operator enabled or disabled (SourceEnabled /
// SourceDisabled). A source never named by either event is enabled. The latest event for
// an id wins; the state survives restart because it is a fold of the log.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "log/envelope.h"

namespace las::reducers {

struct SourceToggle {
  bool enabled = true;
  std::string reason;      // SourceDisabled.reason; empty when enabled
  std::string agent_id;    // who changed it (empty: the operator through the CLI)
  uint64_t sequence = 0;   // the event that set this state
};

struct SourceToggles {
  std::map<std::string, SourceToggle, std::less<>> by_id;
  // False only when the latest event for `id` is SourceDisabled.
  bool IsEnabled(std::string_view id) const {
    auto it = by_id.find(id);
    return it == by_id.end() || it->second.enabled;
  }
};

void Apply(SourceToggles& toggles, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
