#include "projections/releases_projection.h"

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
