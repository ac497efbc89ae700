// ProjectionSet::Save / Restore: the set's side of a snapshot (log/snapshot.h).
#include <cstring>

#include "base/hex.h"
#include "projections/projection_set.h"

namespace las::projections {
namespace {

std::array<uint8_t, 32> RawDigest(const Projection& projection) {
  std::array<uint8_t, 32> raw{};
  auto bytes = FromHex(Digest(projection));
  if (bytes && bytes->size() == raw.size()) std::memcpy(raw.data(), bytes->data(), raw.size());
  return raw;
}

}  // namespace

std::optional<log::Snapshot> ProjectionSet::SaveStates(
    std::vector<std::string>* unsupported) const {
  log::Snapshot snapshot;
  snapshot.projection_set_version = kVersion;
  snapshot.sequence = sequence_;
  bool complete = true;
  for (const auto& projection : projections_) {
    log::ProjectionState state;
    state.name = std::string(projection->name());
    if (!projection->Save(state.state)) {
      complete = false;
      if (unsupported != nullptr) unsupported->push_back(state.name);
      continue;
    }
    snapshot.projections.push_back(std::move(state));
  }
  if (!complete) return std::nullopt;
  return snapshot;
}

std::optional<log::Snapshot> ProjectionSet::Save(const log::Hash& event_hash,
                                                 std::vector<std::string>* unsupported) const {
  auto snapshot = SaveStates(unsupported);
  if (!snapshot) return std::nullopt;
  snapshot->event_hash = event_hash;
  // SaveStates keeps the set's order, one state per projection.
  for (size_t i = 0; i < projections_.size(); ++i) {
    snapshot->projections[i].digest = RawDigest(*projections_[i]);
  }
  return snapshot;
}

Status ProjectionSet::Restore(const log::Snapshot& snapshot) {
  return Load(snapshot, nullptr);
}

Status ProjectionSet::RestoreAndDigest(log::Snapshot& snapshot) {
  std::vector<std::array<uint8_t, 32>> digests;
  LAS_RETURN_IF_ERROR(Load(snapshot, &digests));
  for (size_t i = 0; i < digests.size(); ++i) snapshot.projections[i].digest = digests[i];
  return Status::Ok();
}

Status ProjectionSet::Load(const log::Snapshot& snapshot,
                           std::vector<std::array<uint8_t, 32>>* computed) {
  if (snapshot.projection_set_version != kVersion) {
    return Unsupported("snapshot of projection-set version " +
                       std::to_string(snapshot.projection_set_version) + " (this Las has " +
                       std::to_string(kVersion) + ")");
  }
  if (sequence_ != 0) return InvalidArgument("a snapshot restores only into a fresh set");
  if (snapshot.projections.size() != projections_.size()) {
    return Corruption("the snapshot holds " + std::to_string(snapshot.projections.size()) +
                      " projections, this Las has " + std::to_string(projections_.size()));
  }
  if (computed != nullptr) computed->assign(snapshot.projections.size(), {});
  for (const auto& projection : projections_) {
    size_t saved = snapshot.projections.size();
    for (size_t i = 0; i < snapshot.projections.size(); ++i) {
      if (snapshot.projections[i].name == projection->name()) saved = i;
    }
    const std::string name(projection->name());
    if (saved == snapshot.projections.size()) {
      return Corruption("the snapshot lacks projection '" + name + "'");
    }
    if (!projection->Restore(snapshot.projections[saved].state)) {
      return Corruption("projection '" + name + "': the snapshot state does not parse");
    }
    if (computed != nullptr) {
      (*computed)[saved] = RawDigest(*projection);
    } else if (RawDigest(*projection) != snapshot.projections[saved].digest) {
      return Corruption("projection '" + name + "': the restored digest differs from the "
                        "recorded one");
    }
  }
  sequence_ = snapshot.sequence;
  return Status::Ok();
}

}  // namespace las::projections
