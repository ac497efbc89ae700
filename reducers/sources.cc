#include "reducers/sources.h"

#include "reducers/strings.h"

namespace las::reducers {

void Apply(SourceToggles& toggles, uint64_t sequence, const fb::Envelope& event) {
  if (event.payload_type() == fb::EventPayload::SourceEnabled) {
    SourceToggle& toggle = toggles.by_id[Str(event.payload_as_SourceEnabled()->source_id())];
    toggle = {true, "", Str(event.agent_id()), sequence};
  } else if (event.payload_type() == fb::EventPayload::SourceDisabled) {
    const auto* p = event.payload_as_SourceDisabled();
    toggles.by_id[Str(p->source_id())] = {false, Str(p->reason()), Str(event.agent_id()),
                                          sequence};
  }
}

}  // namespace las::reducers
