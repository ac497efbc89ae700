// The releases reducer: per trust key, the highest accepted release (the watermark as the
// log saw it), and per surface its latest admission verdict.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "log/envelope.h"

namespace las::reducers {

struct KeyRecord {
  uint64_t watermark = 0;          // highest WatermarkAdvanced.to_sequence
  uint64_t accepted = 0;           // ReleaseAccepted count
  uint64_t rejected = 0;           // ReleaseRejected count
  std::string manifest_sha256;     // of the release at the watermark
  std::string last_rejection;      // reason code of the latest rejection
};

struct SurfaceVerdict {
  bool admitted = false;
  uint64_t release_sequence = 0;
  std::string reason;              // rejection reason code when not admitted
  uint64_t sequence = 0;           // event that set this verdict
};

struct Releases {
  std::map<std::string, KeyRecord> keys;          // by key id
  std::map<std::string, SurfaceVerdict> surfaces; // by surface name
};

void Apply(Releases& releases, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
