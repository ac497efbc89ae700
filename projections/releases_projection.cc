#include "projections/releases_projection.h"

#include "projections/state_codec.h"

namespace las::projections {

void ReleasesProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("keys");
  out.BeginObject();
  for (const auto& [id, k] : releases_.keys) {  // std::map: ascending key order
    out.Key(id);
    out.BeginObject();
    out.Key("accepted");
    out.Uint(k.accepted);
    out.Key("last_rejection");
    out.String(k.last_rejection);
    out.Key("manifest_sha256");
    out.String(k.manifest_sha256);
    out.Key("rejected");
    out.Uint(k.rejected);
    out.Key("watermark");
    out.Uint(k.watermark);
    out.EndObject();
  }
  out.EndObject();
  out.Key("surfaces");
  out.BeginObject();
  for (const auto& [name, v] : releases_.surfaces) {
    out.Key(name);
    out.BeginObject();
    out.Key("admitted");
    out.Bool(v.admitted);
    out.Key("reason");
    out.String(v.reason);
    out.Key("release_sequence");
    out.Uint(v.release_sequence);
    out.Key("sequence");
    out.Uint(v.sequence);
    out.EndObject();
  }
  out.EndObject();
  out.EndObject();
}

}  // namespace las::projections

namespace las::projections {

bool ReleasesProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(releases_.keys.size());
  for (const auto& [id, k] : releases_.keys) {
    w.String(id);
    w.Uint(k.watermark);
    w.Uint(k.accepted);
    w.Uint(k.rejected);
    w.String(k.manifest_sha256);
    w.String(k.last_rejection);
  }
  w.Uint(releases_.surfaces.size());
  for (const auto& [name, v] : releases_.surfaces) {
    w.String(name);
    w.Bool(v.admitted);
    w.Uint(v.release_sequence);
    w.String(v.reason);
    w.Uint(v.sequence);
  }
  return true;
}

bool ReleasesProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  std::string name;
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::KeyRecord k;
    in.String(name);
    in.Uint(k.watermark);
    in.Uint(k.accepted);
    in.Uint(k.rejected);
    in.String(k.manifest_sha256);
    in.String(k.last_rejection);
    if (in.ok()) releases_.keys[name] = std::move(k);
  }
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::SurfaceVerdict v;
    in.String(name);
    in.Bool(v.admitted);
    in.Uint(v.release_sequence);
    in.String(v.reason);
    in.Uint(v.sequence);
    if (in.ok()) releases_.surfaces[name] = std::move(v);
  }
  return in.done();
}

}  // namespace las::projections
