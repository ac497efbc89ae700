// Federation: a served release ends at its expiry (federation.h, step 3c). The release was
// admitted because it had not expired; past expires_at it no longer admits anything, so
// its surfaces stop as they would after a failed admission: their children are ended and
// their calls fail until las restarts with a release that has not expired. The timer looks
// at the wall clock at least every minute; a call that finds the release expired first
// (the clock stepped forward) is refused and stops the surfaces at once, and a start that
// ends after the expiry admits nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tools/expiry_watch.h"
#include "base/note.h"
#include "tools/federation.h"
#include "transport/mcp_client.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/rfc3339.h"

namespace las::tools {

namespace {

// The longest wait between two looks at the wall clock: it may be stepped forward (or the
// machine suspended) past the expiry, which a steady timer set for the whole span would
// not notice; and a span of centuries would overflow the timer's nanoseconds.
constexpr int64_t kLongestWaitMicros = 60'000'000;

std::string ExpiredAt(const trust::Manifest& manifest) {
  return "release " + std::to_string(manifest.sequence) + " expired at " +
         trust::FormatRfc3339UtcMicros(manifest.expires_at_micros);
}

}  // namespace

bool Federation::ReleaseExpired() const {
  return release_ && !trust::CheckExpiry(release_->manifest, options_.clock->NowMicros()).ok();
}

void Federation::WatchExpiry() {
  if (!release_ || shutting_down_) return;
  if (!expiry_) expiry_ = std::make_unique<ExpiryWatch>(io_);
  // The wall clock decides (the release names a wall-clock instant); the timer only
  // wakes the check, which arms it again while the wall clock is short of the instant.
  const int64_t left = release_->manifest.expires_at_micros - options_.clock->NowMicros();
  expiry_->timer.expires_after(
      std::chrono::microseconds(std::clamp<int64_t>(left, 0, kLongestWaitMicros)));
  expiry_->timer.async_wait([this](const boost::system::error_code& error) {
    if (error || shutting_down_) return;  // cancelled: Shutdown
    if (!ReleaseExpired()) return WatchExpiry();
    ExpireRelease();
  });
}

void Federation::ExpireRelease() {
  if (release_expired_ || shutting_down_) return;
  release_expired_ = true;
  const std::string expired = ExpiredAt(release_->manifest);
  if (!options_.quiet) {
    Note("%s: its surfaces are stopped; restart las with a release that has not "
         "expired\n",
         expired.c_str());
  }
  StopEverySurface(trust::ReasonName(trust::Reason::kExpired), expired);
}

void Federation::RefuseIfReleaseEnded(SurfaceLaunch& launch) {
  if (!launch.ok) return;
  if (ReleaseExpired()) {
    launch.reason = std::string(trust::ReasonName(trust::Reason::kExpired));
    launch.detail = ExpiredAt(release_->manifest) + " while the surface started";
  } else if (release_ended_) {
    launch.reason = release_ended_->reason;
    launch.detail = release_ended_->detail + "; while the surface started";
  } else {
    return;
  }
  launch.ok = false;
  if (launch.client != nullptr) Retire(std::move(launch.client), [] {});
}

}  // namespace las::tools
