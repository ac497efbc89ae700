#include "tools/recorded_watermarks.h"

#include <optional>

#include "trust/digest.h"

namespace las::tools {

trust::Watermarks RecordedWatermarks(const reducers::Releases& releases) {
  trust::Watermarks recorded;
  for (const auto& [key_id, record] : releases.keys) {
    const std::optional<trust::Sha256Digest> digest = trust::Sha256FromHex(record.manifest_sha256);
    if (record.watermark == 0 || !digest) continue;
    recorded.by_key.emplace(key_id, trust::WatermarkEntry{record.watermark, *digest});
  }
  return recorded;
}

}  // namespace las::tools
