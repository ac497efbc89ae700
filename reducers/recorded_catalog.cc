#include "reducers/recorded_catalog.h"

#include "reducers/strings.h"

namespace las::reducers {

void Apply(RecordedCatalog& catalog, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::SurfaceAdmitted: {
      const auto* p = event.payload_as_SurfaceAdmitted();
      catalog.surfaces[Str(p->surface())] = {true, p->release_sequence(), "", "", sequence, {}};
      break;
    }
    case fb::EventPayload::SurfaceRejected: {
      const auto* p = event.payload_as_SurfaceRejected();
      catalog.surfaces[Str(p->surface())] = {false, p->release_sequence(), Str(p->reason()),
                                             Str(p->detail()), sequence, {}};
      break;
    }
    case fb::EventPayload::SurfaceStopped: {
      const auto* p = event.payload_as_SurfaceStopped();
      auto it = catalog.surfaces.find(Str(p->surface()));
      if (it == catalog.surfaces.end()) break;
      it->second.admitted = false;
      it->second.reason = Str(p->reason());
      it->second.detail = Str(p->detail());
      it->second.sequence = sequence;
      break;
    }
    case fb::EventPayload::CatalogLoaded: {
      const auto* p = event.payload_as_CatalogLoaded();
      RecordedSurface& surface = catalog.surfaces[Str(p->surface())];
      if (surface.sequence == 0) surface.admitted = true;
      surface.sequence = sequence;
      surface.tools.clear();
      if (p->tools() != nullptr) {
        for (const auto* tool : *p->tools()) {
          surface.tools.push_back({Str(tool->name()), Str(tool->input_schema_sha256()),
                                   Str(tool->description_sha256()),
                                   Str(tool->credential_templates_sha256()),
                                   tool->credential_templates_sha256() != nullptr});
        }
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace las::reducers
