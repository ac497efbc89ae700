#include "projections/projection_set.h"

#include <algorithm>

#include "log/envelope.h"
#include "projections/calls_projection.h"
#include "projections/grants_projection.h"
#include "projections/handles_projection.h"
#include "projections/mailbox_projection.h"
#include "projections/state_projection.h"
#include "projections/catalog_projection.h"
#include "projections/onboarding_projection.h"
#include "projections/releases_projection.h"
#include "projections/sessions_projection.h"
#include "projections/sources_projection.h"

namespace las::projections {

ProjectionSet::ProjectionSet() {
  projections_.push_back(std::make_unique<CallsProjection>());
  projections_.push_back(std::make_unique<GrantsProjection>());
  projections_.push_back(std::make_unique<OnboardingProjection>());
  projections_.push_back(std::make_unique<ReleasesProjection>());
  projections_.push_back(std::make_unique<SessionsProjection>());
  projections_.push_back(std::make_unique<CatalogProjection>());
  projections_.push_back(std::make_unique<SourcesProjection>());
  projections_.push_back(std::make_unique<StateProjection>());
  projections_.push_back(std::make_unique<MailboxProjection>());
  projections_.push_back(std::make_unique<HandlesProjection>());
  std::sort(projections_.begin(), projections_.end(),
            [](const auto& a, const auto& b) { return a->name() < b->name(); });
}

ProjectionSet::~ProjectionSet() = default;
ProjectionSet::ProjectionSet(ProjectionSet&&) noexcept = default;
ProjectionSet& ProjectionSet::operator=(ProjectionSet&&) noexcept = default;

void ProjectionSet::Apply(const log::StoredEvent& event) {
  const fb::Envelope& envelope = log::EnvelopeOf(event);
  for (auto& projection : projections_) projection->Apply(event.sequence, event.hash, envelope);
  sequence_ = event.sequence;
}

std::vector<std::pair<std::string, std::string>> ProjectionSet::Digests() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& projection : projections_) {
    out.emplace_back(std::string(projection->name()), Digest(*projection));
  }
  return out;
}

const Projection* ProjectionSet::Find(std::string_view name) const {
  for (const auto& projection : projections_) {
    if (projection->name() == name) return projection.get();
  }
  return nullptr;
}

}  // namespace las::projections
