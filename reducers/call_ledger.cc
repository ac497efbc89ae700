#include "reducers/call_ledger.h"

#include "reducers/strings.h"

namespace las::reducers {
namespace {

std::string OutcomeName(fb::CallOutcome outcome) {
  switch (outcome) {
    case fb::CallOutcome::Ok: return "ok";
    case fb::CallOutcome::ToolError: return "tool_error";
    case fb::CallOutcome::Failed: return "failed";
    case fb::CallOutcome::TimedOut: return "timed_out";
    case fb::CallOutcome::Refused: return "refused";
  }
  return "unknown";
}

}  // namespace

void Apply(CallLedger& ledger, uint64_t sequence, const fb::Envelope& event) {
  switch (event.payload_type()) {
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = event.payload_as_ToolCallRequested();
      CallRecord& record = ledger.calls[Str(p->call_id())];
      record.surface = Str(p->surface());
      record.tool = Str(p->tool());
      record.agent_id = Str(event.agent_id());
      record.session_id = Str(event.session_id());
      record.status = "requested";
      record.requested_sequence = sequence;
      ++ledger.requested;
      break;
    }
    case fb::EventPayload::ToolCallCompleted: {
      const auto* p = event.payload_as_ToolCallCompleted();
      CallRecord& record = ledger.calls[Str(p->call_id())];
      record.status = OutcomeName(p->outcome());
      record.reason = Str(p->error_code());
      record.finished_sequence = sequence;
      record.duration_micros = p->duration_micros();
      ++ledger.completed;
      break;
    }
    case fb::EventPayload::ToolCallDenied: {
      const auto* p = event.payload_as_ToolCallDenied();
      CallRecord& record = ledger.calls[Str(p->call_id())];
      record.surface = Str(p->surface());
      record.tool = Str(p->tool());
      record.agent_id = Str(event.agent_id());
      record.session_id = Str(event.session_id());
      record.status = "denied";
      record.reason = Str(p->reason());
      record.finished_sequence = sequence;
      ++ledger.denied;
      break;
    }
    default:
      break;  // other kinds, including ones this build does not know
  }
}

}  // namespace las::reducers
