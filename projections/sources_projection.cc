#include "projections/sources_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

void SourcesProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  for (const auto& [id, t] : toggles_.by_id) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("agent_id");
    out.String(t.agent_id);
    out.Key("enabled");
    out.Bool(t.enabled);
    out.Key("reason");
    out.String(t.reason);
    out.Key("sequence");
    out.Uint(t.sequence);
    out.EndObject();
  }
  out.EndObject();
}

bool SourcesProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(toggles_.by_id.size());
  for (const auto& [id, t] : toggles_.by_id) {
    w.String(id);
    w.Bool(t.enabled);
    w.String(t.reason);
    w.String(t.agent_id);
    w.Uint(t.sequence);
  }
  return true;
}

bool SourcesProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  std::string id;
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::SourceToggle t;
    in.String(id);
    in.Bool(t.enabled);
    in.String(t.reason);
    in.String(t.agent_id);
    in.Uint(t.sequence);
    if (in.ok()) toggles_.by_id[id] = std::move(t);
  }
  return in.done();
}

}  // namespace las::projections
