// The fold step of the replay benchmark, isolated so that what "fold" means is in one place.
//
// With LAS_BENCH_HAVE_PROJECTIONS (set by bench/CMakeLists.txt when projections/ provides
// projection_set.h), it is the real thing: every event goes to las::projections::ProjectionSet,
// exactly as a restart or `las replay` folds the log. Without it, it is a stand-in that only
// counts events per kind; the benchmark labels its output as such, and its replay figure is
// then NOT the replay target's figure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "log/envelope.h"
#include "log/event.h"

#if LAS_BENCH_HAVE_PROJECTIONS
#include "projections/projection_set.h"
#endif

namespace las::bench {

class FoldStep {
 public:
  using Digests = std::vector<std::pair<std::string, std::string>>;

#if LAS_BENCH_HAVE_PROJECTIONS
  static constexpr bool kReal = true;
  static std::string_view Description() { return "projections::ProjectionSet::Apply"; }
  void Apply(const log::StoredEvent& event) { set_.Apply(event); }
  Digests digests() const { return set_.Digests(); }

 private:
  projections::ProjectionSet set_;
#else
  static constexpr bool kReal = false;
  static std::string_view Description() {
    return "STAND-IN (per-kind counter; projections/projection_set.h was not built)";
  }
  void Apply(const log::StoredEvent& event) {
    const auto kind = static_cast<size_t>(log::EnvelopeOf(event).payload_type());
    ++counts_[kind < counts_.size() ? kind : 0];
  }
  Digests digests() const {
    Digests out;
    for (size_t kind = 0; kind < counts_.size(); ++kind) {
      if (counts_[kind] == 0) continue;
      out.emplace_back(
          std::string(log::KindName(static_cast<fb::EventPayload>(kind))) + " (count)",
          std::to_string(counts_[kind]));
    }
    return out;
  }

 private:
  std::array<uint64_t, 256> counts_{};
#endif
};

}  // namespace las::bench
