// ProjectionSet: every projection this build knows, fed each event in log order.
//
// Restart and audit both come down to: fold the log into a fresh set, compare digests.
// Not thread-safe: the owner serializes Apply() and queries.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "log/event.h"
#include "log/snapshot.h"
#include "projections/projection.h"

namespace las::projections {

class ProjectionSet {
 public:
  // The version of the set's snapshot state (log/snapshot.h, Snapshot::projection_set_
  // version). Bump it when any projection's Save bytes change meaning; snapshots of
  // another version are ignored (start-up folds from sequence 1). Adding or removing a
  // projection needs no bump: a snapshot must name exactly this build's projections.
  // 2: "calls" holds the call summary; 3: "handles" keeps no content (it is in the log);
  // 4: "state" keeps only the current version's value (older ones are in the log);
  // 5: "mailbox" keeps message bodies' sizes, not the bodies (they are in the log);
  // 6: "state" keeps the current version whole and only a sequence per older version;
  // 7: "onboarding" completes steps from ReleaseAccepted and SurfaceAdmitted;
  // 8: "sessions" keeps the open sessions and a count of the closed ones;
  // 9: "handles", "mailbox" and "state" keep the chain hash of each event they read back;
  // 10: "catalog" keeps each tool's credential templates digest.
  static constexpr uint32_t kVersion = 10;

  ProjectionSet();  // all known projections, empty
  ~ProjectionSet();
  ProjectionSet(ProjectionSet&&) noexcept;
  ProjectionSet& operator=(ProjectionSet&&) noexcept;

  // Folds one event (which came out of a verifying cursor) into every projection.
  void Apply(const log::StoredEvent& event);
  // The last sequence folded; 0 when none.
  uint64_t sequence() const { return sequence_; }

  // (name, hex SHA-256 of canonical JSON) for each projection, sorted by name.
  std::vector<std::pair<std::string, std::string>> Digests() const;
  // The projection with that name, or nullptr. Owned by the set.
  const Projection* Find(std::string_view name) const;
  const std::vector<std::unique_ptr<Projection>>& all() const { return projections_; }

  // Snapshots (projections/projection_set_snapshot.cc). Save: the state of every
  // projection as of sequence(), whose chain hash the caller passes; nullopt when some
  // projection does not implement Save (their names go to `unsupported`, if given).
  std::optional<log::Snapshot> Save(const log::Hash& event_hash,
                                    std::vector<std::string>* unsupported = nullptr) const;
  // Loads `snapshot` into this set, which must be fresh (nothing applied). Checks the set
  // version, that the snapshot names exactly this set's projections, that each one's
  // bytes parse, and that each restored digest equals the recorded one. On error (kUnsupported
  // for another version, kCorruption otherwise; the message names the projection, never
  // state content) the set is left partly loaded and must be discarded.
  Status Restore(const log::Snapshot& snapshot);

  // The two halves of Save for a writer that must not hold the set's thread for long
  // (tools/live_projections.h). SaveStates: Save without the digests and the event hash
  // (both left zero) — only each projection's own bytes, the cheap part. RestoreAndDigest:
  // like Restore into this fresh set, but instead of checking the recorded digests it
  // computes them from the restored state and fills them into `snapshot`. A lossy codec is
  // then caught by a restore that differs from a fold (`las replay`, the round-trip tests),
  // not by the load-time digest check.
  std::optional<log::Snapshot> SaveStates(std::vector<std::string>* unsupported = nullptr) const;
  Status RestoreAndDigest(log::Snapshot& snapshot);

 private:
  // Restore's checks; verifies the recorded digests when `computed` is null, else writes
  // each restored projection's digest there, index-aligned with snapshot.projections.
  Status Load(const log::Snapshot& snapshot, std::vector<std::array<uint8_t, 32>>* computed);

  std::vector<std::unique_ptr<Projection>> projections_;  // sorted by name
  uint64_t sequence_ = 0;
};

}  // namespace las::projections
