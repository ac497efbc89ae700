#include "projections/handles_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

void HandlesProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("handles");
  out.BeginObject();
  for (const auto& [id, h] : handles_.by_id) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("content_sha256");
    out.String(h.content_sha256);
    out.Key("created_micros");
    out.Int(h.created_micros);
    out.Key("media_type");
    out.String(h.media_type);
    out.Key("owner_agent_id");
    out.String(h.owner_agent_id);
    out.Key("sequence");
    out.Uint(h.sequence);
    out.Key("size");
    out.Uint(h.size);
    out.EndObject();
  }
  out.EndObject();
  out.Key("skipped");
  out.Uint(handles_.skipped);
  out.EndObject();
}

}  // namespace las::projections

namespace las::projections {

bool HandlesProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(handles_.by_id.size());
  for (const auto& [id, h] : handles_.by_id) {
    w.String(h.handle_id);
    w.String(h.owner_agent_id);
    w.String(h.media_type);
    w.Uint(h.size);
    w.String(h.content_sha256);
    w.Uint(h.sequence);
    w.Fixed(h.event_hash);
    w.Int(h.created_micros);
  }
  w.Uint(handles_.skipped);
  return true;
}

bool HandlesProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::HandleRecord h;
    in.String(h.handle_id);
    in.String(h.owner_agent_id);
    in.String(h.media_type);
    in.Uint(h.size);
    in.String(h.content_sha256);
    in.Uint(h.sequence);
    in.Fixed(h.event_hash);
    in.Int(h.created_micros);
    if (in.ok()) handles_.by_id[h.handle_id] = std::move(h);
  }
  in.Uint(handles_.skipped);
  return in.done();
}

}  // namespace las::projections
