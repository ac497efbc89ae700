#include "reducers/releases.h"

#include <algorithm>

#include "reducers/strings.h"

namespace las::reducers {

void Apply(Releases& releases, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::ReleaseAccepted:
      ++releases.keys[Str(event.payload_as_ReleaseAccepted()->key_id())].accepted;
      break;
    case fb::EventPayload::ReleaseRejected: {
      const auto* p = event.payload_as_ReleaseRejected();
      KeyRecord& key = releases.keys[Str(p->key_id())];
      ++key.rejected;
      key.last_rejection = Str(p->reason());
      break;
    }
    case fb::EventPayload::WatermarkAdvanced: {
      const auto* p = event.payload_as_WatermarkAdvanced();
      KeyRecord& key = releases.keys[Str(p->key_id())];
      if (p->to_sequence() >= key.watermark) {
        key.watermark = p->to_sequence();
        key.manifest_sha256 = Str(p->manifest_sha256());
      }
      break;
    }
    case fb::EventPayload::SurfaceAdmitted: {
      const auto* p = event.payload_as_SurfaceAdmitted();
      releases.surfaces[Str(p->surface())] = {true, p->release_sequence(), "", sequence};
      break;
    }
    case fb::EventPayload::SurfaceRejected: {
      const auto* p = event.payload_as_SurfaceRejected();
      releases.surfaces[Str(p->surface())] = {false, p->release_sequence(), Str(p->reason()),
                                              sequence};
      break;
    }
    default:
      break;
  }
}

}  // namespace las::reducers
