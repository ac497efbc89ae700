#include "projections/calls_projection.h"

#include <nlohmann/json.hpp>

namespace las::projections {

std::string CallsProjection::CanonicalJson() const {
  nlohmann::json calls = nlohmann::json::object();  // std::map-backed: sorted keys
  for (const auto& [id, r] : ledger_.calls) {
    calls[id] = {{"surface", r.surface},
                 {"tool", r.tool},
                 {"agent_id", r.agent_id},
                 {"session_id", r.session_id},
                 {"status", r.status},
                 {"reason", r.reason},
                 {"requested_sequence", r.requested_sequence},
                 {"finished_sequence", r.finished_sequence},
                 {"duration_micros", r.duration_micros}};
  }
  nlohmann::json out = {{"calls", std::move(calls)},
                        {"requested", ledger_.requested},
                        {"completed", ledger_.completed},
                        {"denied", ledger_.denied}};
  return out.dump();
}

std::optional<reducers::CallRecord> CallsProjection::Find(const std::string& call_id) const {
  auto it = ledger_.calls.find(call_id);
  if (it == ledger_.calls.end()) return std::nullopt;
  return it->second;
}

}  // namespace las::projections
