#include "projections/replay.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "log/envelope.h"
#include "reducers/call_ledger.h"
#include "reducers/strings.h"

namespace las::projections {
namespace {

// What log::KindName calls a kind this build does not know.
constexpr std::string_view kUnknownKind = "Unknown";

using reducers::Str;

// The surface an event concerns, or "" for none. Completions name only their call, so
// they are matched through the ledger (already folded up to this event).
std::string SurfaceOf(const fb::Envelope& e, const reducers::CallLedger* calls) {
  switch (e.payload_type()) {
    case fb::EventPayload::SurfaceAdmitted: return Str(e.payload_as_SurfaceAdmitted()->surface());
    case fb::EventPayload::SurfaceRejected: return Str(e.payload_as_SurfaceRejected()->surface());
    case fb::EventPayload::CatalogLoaded: return Str(e.payload_as_CatalogLoaded()->surface());
    case fb::EventPayload::ToolWithheld: return Str(e.payload_as_ToolWithheld()->surface());
    case fb::EventPayload::SurfaceStopped: return Str(e.payload_as_SurfaceStopped()->surface());
    case fb::EventPayload::ToolCallRequested:
      return Str(e.payload_as_ToolCallRequested()->surface());
    case fb::EventPayload::ToolCallDenied: {
      // A name no catalog holds is denied with no surface and recorded whole: the surface
      // it was addressed to is what precedes its first "__" (trust/manifest.h), so that
      // probing for a surface's tools is found under it too (probe AY7).
      const auto* denied = e.payload_as_ToolCallDenied();
      std::string surface = Str(denied->surface());
      if (!surface.empty()) return surface;
      const std::string name = Str(denied->tool());
      const size_t split = name.find("__");
      return split == std::string::npos ? "" : name.substr(0, split);
    }
    case fb::EventPayload::ToolCallCompleted: {
      if (calls == nullptr) return "";
      auto record = calls->calls.find(reducers::View(e.payload_as_ToolCallCompleted()->call_id()));
      return record != calls->calls.end() ? record->second.surface : "";
    }
    default: return "";
  }
}

// Whether an event concerns `surface`: those SurfaceOf names it for, a grant with a
// selector on it, a permission rule for one of its tools, its source switched on or off.
// (A revocation or a rule's removal names only its grant or rule, and is not matched.)
bool Concerns(const fb::Envelope& e, const std::string& surface,
              const reducers::CallLedger* calls) {
  switch (e.payload_type()) {
    case fb::EventPayload::GrantIssued: {
      const auto* selectors = e.payload_as_GrantIssued()->selectors();
      if (selectors == nullptr) return false;
      return std::any_of(selectors->begin(), selectors->end(),
                         [&](const fb::GrantSelector* s) { return Str(s->surface()) == surface; });
    }
    case fb::EventPayload::PermissionRuleAdded:
      return Str(e.payload_as_PermissionRuleAdded()->surface()) == surface;
    case fb::EventPayload::SourceEnabled:
      return Str(e.payload_as_SourceEnabled()->source_id()) == surface;
    case fb::EventPayload::SourceDisabled:
      return Str(e.payload_as_SourceDisabled()->source_id()) == surface;
    default: return SurfaceOf(e, calls) == surface;
  }
}

bool Selected(const log::StoredEvent& event, const fb::Envelope& e, const ReplayFilter& filter,
              const std::vector<fb::EventPayload>& kinds, const reducers::CallLedger* calls) {
  if (event.sequence < filter.from || event.sequence > filter.to) return false;
  // A kind this build does not know is selected as "Unknown" (kinds holds NONE for it),
  // the name it is printed under (log/event_json.h; probe BH7).
  const fb::EventPayload kind =
      e.payload_type() > fb::EventPayload::MAX ? fb::EventPayload::NONE : e.payload_type();
  if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) return false;
  if (filter.agent && Str(e.agent_id()) != *filter.agent) return false;
  if (filter.surface && !Concerns(e, *filter.surface, calls)) return false;
  return true;
}

}  // namespace

Status ValidateFilter(const ReplayFilter& filter) {
  for (const auto& name : filter.kinds) {
    if (name != kUnknownKind && log::KindFromName(name) == fb::EventPayload::NONE) {
      std::string known;
      for (auto kind : fb::EnumValuesEventPayload()) {
        if (kind == fb::EventPayload::NONE) continue;
        if (!known.empty()) known += ", ";
        known += log::KindName(kind);
      }
      return InvalidArgument("unknown event kind '" + name + "' (known: " + known + ", and " +
                             std::string(kUnknownKind) + " for kinds this build does not know)");
    }
  }
  if (filter.to == 0) return InvalidArgument("--to 0 selects nothing: sequences start at 1");
  if (filter.from > filter.to) {
    return InvalidArgument("--from " + std::to_string(filter.from) + " is after --to " +
                           std::to_string(filter.to));
  }
  if (filter.surface && filter.surface->empty()) {
    return InvalidArgument("--surface needs a surface name");
  }
  return Status::Ok();
}

namespace {

ReplayOutcome VerifyAndFold(log::EventCursor& cursor, const ReplayFilter& filter,
                            const ReplayCallbacks& callbacks, ProjectionSet& projections) {
  ReplayOutcome outcome;
  std::vector<fb::EventPayload> kinds;
  for (const auto& name : filter.kinds) kinds.push_back(log::KindFromName(name));
  // The per-call ledger is folded here only when a surface filter needs it (the "calls"
  // projection keeps no per-call records).
  std::optional<reducers::CallLedger> ledger;
  if (filter.surface && callbacks.on_selected) ledger.emplace();
  const reducers::CallLedger* calls = ledger ? &*ledger : nullptr;

  while (true) {
    auto more = cursor.Next();
    if (!more.ok()) {
      outcome.status = more.status();
      outcome.first_bad_sequence = cursor.first_bad_sequence();
      return outcome;
    }
    if (!*more) return outcome;
    const log::StoredEvent& event = cursor.current();
    if (callbacks.audit) {
      if (Status audited = callbacks.audit(event); !audited.ok()) {
        outcome.status = Corruption("event " + std::to_string(event.sequence) + ": " +
                                    audited.message());
        outcome.first_bad_sequence = event.sequence;
        return outcome;
      }
    }
    projections.Apply(event);
    if (ledger) reducers::Apply(*ledger, event.sequence, log::EnvelopeOf(event));
    ++outcome.verified;
    if (callbacks.on_selected &&
        Selected(event, log::EnvelopeOf(event), filter, kinds, calls)) {
      ++outcome.selected;
      if (Status taken = callbacks.on_selected(event); !taken.ok()) {
        outcome.status = std::move(taken);
        return outcome;
      }
    }
    if (callbacks.on_progress && outcome.verified % callbacks.progress_every == 0) {
      callbacks.on_progress(outcome.verified, cursor.head().sequence);
    }
  }
}

}  // namespace

ReplayOutcome Replay(log::EventCursor& cursor, const ReplayFilter& filter,
                     const ReplayCallbacks& callbacks, ProjectionSet& projections) {
  ReplayOutcome outcome = VerifyAndFold(cursor, filter, callbacks, projections);
  // At the end: a follower that re-read a torn view read on to the head of its new view.
  outcome.head = cursor.head();
  return outcome;
}

}  // namespace las::projections
