#include "reducers/sessions.h"

#include "reducers/strings.h"

namespace las::reducers {

void Apply(Sessions& sessions, uint64_t sequence, const fb::Envelope& event) {
  if (event.payload_type() == fb::EventPayload::SessionOpened) {
    const auto* p = event.payload_as_SessionOpened();
    SessionRecord& record = sessions.by_id[Str(event.session_id())];
    record.agent_id = Str(event.agent_id());
    record.client_name = Str(p->client_name());
    record.client_version = Str(p->client_version());
    record.transport = Str(p->transport());
    record.opened_sequence = sequence;
    record.opened_micros = event.time_micros();
  } else if (event.payload_type() == fb::EventPayload::SessionClosed) {
    SessionRecord& record = sessions.by_id[Str(event.session_id())];
    record.closed_sequence = sequence;
    record.close_reason = Str(event.payload_as_SessionClosed()->reason());
  }
}

}  // namespace las::reducers
