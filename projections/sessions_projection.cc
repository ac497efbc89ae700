#include "projections/sessions_projection.h"

#include <nlohmann/json.hpp>

namespace las::projections {

std::string SessionsProjection::CanonicalJson() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, r] : sessions_.by_id) {
    out[id] = {{"agent_id", r.agent_id},
               {"client_name", r.client_name},
               {"client_version", r.client_version},
               {"transport", r.transport},
               {"opened_sequence", r.opened_sequence},
               {"opened_micros", r.opened_micros},
               {"closed_sequence", r.closed_sequence},
               {"close_reason", r.close_reason}};
  }
  return out.dump();
}

}  // namespace las::projections
