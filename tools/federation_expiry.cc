// Federation: a served release ends at its expiry (federation.h, step 3c). The release was
// admitted because it had not expired; past expires_at it no longer admits anything, so
// its surfaces stop as they would after a failed admission: their children are ended and
// their calls fail until las restarts with a release that has not expired.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tools/expiry_watch.h"
#include "tools/federation.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/rfc3339.h"

namespace las::tools {

void Federation::WatchExpiry() {
  if (!release_ || shutting_down_) return;
  if (!expiry_) expiry_ = std::make_unique<ExpiryWatch>(io_);
  // The wall clock decides (the release names a wall-clock instant); the timer only
  // wakes the check, which arms it again if the wall clock is still short of the instant.
  const int64_t left = release_->manifest.expires_at_micros - options_.clock->NowMicros();
  expiry_->timer.expires_after(std::chrono::microseconds(std::max<int64_t>(left, 0)));
  expiry_->timer.async_wait([this](const boost::system::error_code& error) {
    if (error || shutting_down_) return;  // cancelled: Shutdown
    if (trust::CheckExpiry(release_->manifest, options_.clock->NowMicros()).ok()) {
      return WatchExpiry();
    }
    ExpireRelease();
  });
}

void Federation::ExpireRelease() {
  const std::string at = trust::FormatRfc3339UtcMicros(release_->manifest.expires_at_micros);
  if (!options_.quiet) {
    std::fprintf(stderr,
                 "las: release %llu expired at %s: its surfaces are stopped; restart las with "
                 "a release that has not expired\n",
                 static_cast<unsigned long long>(release_->manifest.sequence), at.c_str());
  }
  StopEverySurface(trust::ReasonName(trust::Reason::kExpired),
                   "release " + std::to_string(release_->manifest.sequence) + " expired at " + at);
}

}  // namespace las::tools
