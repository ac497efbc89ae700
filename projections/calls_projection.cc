#include "projections/calls_projection.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace las::projections {

void CallsProjection::WriteCanonical(CanonicalWriter& out) const {
  // The ledger is a hash map: visit its records in key order without copying them.
  using Entry = std::pair<const std::string, reducers::CallRecord>;
  std::vector<const Entry*> sorted;
  sorted.reserve(ledger_.calls.size());
  for (const auto& entry : ledger_.calls) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->first < b->first; });

  out.BeginObject();
  out.Key("calls");
  out.BeginObject();
  for (const Entry* entry : sorted) {
    const reducers::CallRecord& r = entry->second;
    out.Key(entry->first);
    out.BeginObject();
    out.Key("agent_id");
    out.String(r.agent_id);
    out.Key("duration_micros");
    out.Int(r.duration_micros);
    out.Key("finished_sequence");
    out.Uint(r.finished_sequence);
    out.Key("reason");
    out.String(r.reason);
    out.Key("requested_sequence");
    out.Uint(r.requested_sequence);
    out.Key("session_id");
    out.String(r.session_id);
    out.Key("status");
    out.String(r.status);
    out.Key("surface");
    out.String(r.surface);
    out.Key("tool");
    out.String(r.tool);
    out.EndObject();
  }
  out.EndObject();
  out.Key("completed");
  out.Uint(ledger_.completed);
  out.Key("denied");
  out.Uint(ledger_.denied);
  out.Key("requested");
  out.Uint(ledger_.requested);
  out.EndObject();
}

std::optional<reducers::CallRecord> CallsProjection::Find(const std::string& call_id) const {
  auto it = ledger_.calls.find(call_id);
  if (it == ledger_.calls.end()) return std::nullopt;
  return it->second;
}

}  // namespace las::projections
