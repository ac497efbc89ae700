#include "reducers/sessions.h"

#include "reducers/strings.h"

namespace las::reducers {
namespace {

void Open(SessionRecord& record, uint64_t sequence, const fb::Envelope& event) {
  const auto* p = event.payload_as_SessionOpened();
  record.agent_id = Str(event.agent_id());
  record.client_name = Str(p->client_name());
  record.client_version = Str(p->client_version());
  record.transport = Str(p->transport());
  record.opened_sequence = sequence;
  record.opened_micros = event.time_micros();
}

}  // namespace

void Apply(Sessions& sessions, uint64_t sequence, const fb::Envelope& event) {
  if (event.payload_type() == fb::EventPayload::SessionOpened) {
    Open(sessions.open[Str(event.session_id())], sequence, event);
  } else if (event.payload_type() == fb::EventPayload::SessionClosed) {
    if (sessions.open.erase(Str(event.session_id())) != 0) ++sessions.closed;
  }
}

void Apply(SessionHistory& history, uint64_t sequence, const fb::Envelope& event) {
  if (event.payload_type() == fb::EventPayload::SessionOpened) {
    SessionHistoryRecord& record = history.by_id[Str(event.session_id())];
    Open(record, sequence, event);
    record.implicit_root = event.payload_as_SessionOpened()->implicit_root();
  } else if (event.payload_type() == fb::EventPayload::SessionClosed) {
    SessionRecord& record = history.by_id[Str(event.session_id())];
    record.closed_sequence = sequence;
    record.close_reason = Str(event.payload_as_SessionClosed()->reason());
  } else if (event.payload_type() == fb::EventPayload::SessionRefused) {
    const auto* p = event.payload_as_SessionRefused();
    history.refused.push_back({sequence, event.time_micros(), Str(event.agent_id()),
                               Str(p->reason()), Str(p->client_name()), Str(p->client_version()),
                               Str(p->transport())});
  }
}

}  // namespace las::reducers
