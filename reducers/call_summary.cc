#include "reducers/call_summary.h"

#include <span>

#include "reducers/strings.h"

namespace las::reducers {
namespace {

void PutU64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

void PutString(std::string& out, std::string_view s) {
  const auto n = static_cast<uint32_t>(s.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
  out.append(s);
}

void PutHeader(std::string& out, uint8_t kind, uint64_t sequence) {
  out.push_back(static_cast<char>(kind));
  PutU64(out, sequence);
}

}  // namespace

bool EncodeLedgerUpdate(uint64_t sequence, const fb::Envelope& event, std::string& out) {
  switch (event.payload_type()) {
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = event.payload_as_ToolCallRequested();
      PutHeader(out, 1, sequence);
      PutString(out, View(p->call_id()));
      PutString(out, View(p->surface()));
      PutString(out, View(p->tool()));
      PutString(out, View(event.agent_id()));
      PutString(out, View(event.session_id()));
      return true;
    }
    case fb::EventPayload::ToolCallCompleted: {
      const auto* p = event.payload_as_ToolCallCompleted();
      PutHeader(out, 2, sequence);
      PutString(out, View(p->call_id()));
      PutString(out, OutcomeName(p->outcome()));
      PutString(out, View(p->error_code()));
      PutU64(out, static_cast<uint64_t>(p->duration_micros()));
      return true;
    }
    case fb::EventPayload::ToolCallDenied: {
      const auto* p = event.payload_as_ToolCallDenied();
      PutHeader(out, 3, sequence);
      PutString(out, View(p->call_id()));
      PutString(out, View(p->surface()));
      PutString(out, View(p->tool()));
      PutString(out, View(event.agent_id()));
      PutString(out, View(event.session_id()));
      PutString(out, View(p->reason()));
      return true;
    }
    default:
      return false;
  }
}

void Apply(CallSummary& summary, uint64_t sequence, const fb::Envelope& event) {
  std::string update;
  update.reserve(160);
  if (!EncodeLedgerUpdate(sequence, event, update)) return;  // not a call event
  summary.ledger_hash = log::DomainHash(
      kLedgerHashLabel, summary.ledger_hash,
      std::span(reinterpret_cast<const uint8_t*>(update.data()), update.size()));
  switch (event.payload_type()) {
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = event.payload_as_ToolCallRequested();
      OpenCall& call = summary.open[Str(p->call_id())];
      Assign(call.surface, p->surface());
      Assign(call.tool, p->tool());
      Assign(call.agent_id, event.agent_id());
      Assign(call.session_id, event.session_id());
      call.requested_sequence = sequence;
      ++summary.requested;
      break;
    }
    case fb::EventPayload::ToolCallCompleted: {
      auto it = summary.open.find(View(event.payload_as_ToolCallCompleted()->call_id()));
      if (it != summary.open.end()) summary.open.erase(it);
      ++summary.completed;
      break;
    }
    case fb::EventPayload::ToolCallDenied: {
      auto it = summary.open.find(View(event.payload_as_ToolCallDenied()->call_id()));
      if (it != summary.open.end()) summary.open.erase(it);
      ++summary.denied;
      break;
    }
    default:
      break;
  }
}

}  // namespace las::reducers
