#include "projections/sessions_projection.h"

namespace las::projections {

void SessionsProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  for (const auto& [id, r] : sessions_.by_id) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("agent_id");
    out.String(r.agent_id);
    out.Key("client_name");
    out.String(r.client_name);
    out.Key("client_version");
    out.String(r.client_version);
    out.Key("close_reason");
    out.String(r.close_reason);
    out.Key("closed_sequence");
    out.Uint(r.closed_sequence);
    out.Key("opened_micros");
    out.Int(r.opened_micros);
    out.Key("opened_sequence");
    out.Uint(r.opened_sequence);
    out.Key("transport");
    out.String(r.transport);
    out.EndObject();
  }
  out.EndObject();
}

}  // namespace las::projections
