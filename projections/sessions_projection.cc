#include "projections/sessions_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

void SessionsProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("closed");
  out.Uint(sessions_.closed);
  out.Key("open");
  out.BeginObject();
  for (const auto& [id, r] : sessions_.open) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("agent_id");
    out.String(r.agent_id);
    out.Key("client_name");
    out.String(r.client_name);
    out.Key("client_version");
    out.String(r.client_version);
    out.Key("opened_micros");
    out.Int(r.opened_micros);
    out.Key("opened_sequence");
    out.Uint(r.opened_sequence);
    out.Key("transport");
    out.String(r.transport);
    out.EndObject();
  }
  out.EndObject();
  out.EndObject();
}

bool SessionsProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(sessions_.closed);
  w.Uint(sessions_.open.size());
  for (const auto& [id, r] : sessions_.open) {
    w.String(id);
    w.String(r.agent_id);
    w.String(r.client_name);
    w.String(r.client_version);
    w.String(r.transport);
    w.Uint(r.opened_sequence);
    w.Int(r.opened_micros);
  }
  return true;
}

bool SessionsProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  std::string id;
  in.Uint(sessions_.closed);
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::SessionRecord r;
    in.String(id);
    in.String(r.agent_id);
    in.String(r.client_name);
    in.String(r.client_version);
    in.String(r.transport);
    in.Uint(r.opened_sequence);
    in.Int(r.opened_micros);
    if (in.ok()) sessions_.open[id] = std::move(r);
  }
  return in.done();
}

}  // namespace las::projections
