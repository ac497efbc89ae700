#include "reducers/call_ledger.h"

#include "reducers/strings.h"

namespace las::reducers {
namespace {

// The record for `call_id`, created empty on first sight. For events that usually name a
// call seen before: looks up by view, so a known id costs no string.
CallRecord& RecordFor(CallLedger& ledger, const flatbuffers::String* call_id) {
  const std::string_view id = View(call_id);
  auto it = ledger.calls.find(id);
  if (it == ledger.calls.end()) it = ledger.calls.emplace(std::string(id), CallRecord{}).first;
  return it->second;
}

}  // namespace

std::string_view OutcomeName(fb::CallOutcome outcome) {
  switch (outcome) {
    case fb::CallOutcome::Ok: return "ok";
    case fb::CallOutcome::ToolError: return "tool_error";
    case fb::CallOutcome::Failed: return "failed";
    case fb::CallOutcome::TimedOut: return "uncertain";  // the child may still act on it
    case fb::CallOutcome::Refused: return "refused";
  }
  return "unknown";
}

void Apply(CallLedger& ledger, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = event.payload_as_ToolCallRequested();
      // Usually a new call: one hash and one insert (the key string is needed anyway).
      CallRecord& record = ledger.calls.try_emplace(Str(p->call_id())).first->second;
      Assign(record.surface, p->surface());
      Assign(record.tool, p->tool());
      Assign(record.agent_id, event.agent_id());
      Assign(record.session_id, event.session_id());
      record.status = "uncertain";  // until a completion says otherwise
      record.requested_sequence = sequence;
      ++ledger.requested;
      break;
    }
    case fb::EventPayload::ToolCallCompleted: {
      const auto* p = event.payload_as_ToolCallCompleted();
      CallRecord& record = RecordFor(ledger, p->call_id());
      record.status = OutcomeName(p->outcome());
      Assign(record.reason, p->error_code());
      Assign(record.detail, p->detail());
      record.finished_sequence = sequence;
      record.duration_micros = p->duration_micros();
      ++ledger.completed;
      break;
    }
    case fb::EventPayload::ToolCallDenied: {
      const auto* p = event.payload_as_ToolCallDenied();
      CallRecord& record = RecordFor(ledger, p->call_id());
      Assign(record.surface, p->surface());
      Assign(record.tool, p->tool());
      Assign(record.agent_id, event.agent_id());
      Assign(record.session_id, event.session_id());
      record.status = "denied";
      Assign(record.reason, p->reason());
      Assign(record.detail, p->detail());
      record.finished_sequence = sequence;
      ++ledger.denied;
      break;
    }
    default:
      break;  // other kinds, including ones this build does not know
  }
}

}  // namespace las::reducers
