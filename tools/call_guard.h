// CallGuard: one local rule a tools/call passes before Las logs it as requested, and that
// the child's result passes before the client sees it. Source state, grants and the special
// surface policies (Skarbiec, Finance, Tama, Warsztat) are guards; the gateway runs them in
// the order it was given them, and the first refusal wins: its reason is what the log
// records. What the client hears is that refusal's text — unless a later guard that
// ConcealsEarlierRefusals() refuses the call too: then that guard's text, so a caller not
// permitted a tool learns nothing of the tool's other rules (probe DS2: Skarbiec's argument
// policy told an agent without a grant which arguments its taxonomy admits).
//
// A refusal carries a stable reason code (recorded in ToolCallDenied, or as the error code
// of a ToolCallCompleted with outcome Refused) and static client text: nothing the client
// or the child sent is ever echoed back.
//
// Threading: called on the gateway's loop thread only; a guard may keep loop-owned state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/catalog.h"
#include "tools/mcp_endpoint.h"

namespace las::tools {

struct Refusal {
  std::string reason;            // stable code, e.g. "source-disabled", "no-grant"
  int error_code = -32602;       // JSON-RPC error code for the client
  std::string_view message;      // static text for the client
  std::string detail = {};       // for the log's ToolCallDenied only, never the client
};

class CallGuard {
 public:
  virtual ~CallGuard() = default;
  // Before the call is logged. `arguments_json` is the client's arguments object as sent
  // (credentials not yet injected). nullopt: allowed.
  virtual std::optional<Refusal> BeforeCall(const SessionInfo& session, const CatalogTool& tool,
                                            std::string_view arguments_json) = 0;
  // Whether `tool` appears in this session's `tools/list` (every guard must agree). A
  // listing rule only: a call is decided by BeforeCall.
  virtual bool Listed(const SessionInfo& /*session*/, const CatalogTool& /*tool*/) const {
    return true;
  }
  // A promise that lets the gateway cache `tools/list` (tools/tools_list_cache.h): while
  // this returns the same value, Listed(session, tool) depends on nothing but
  // session.agent_id and the tool. Return a value that changes whenever the listing rule's
  // inputs change (e.g. a LiveProjections sequence). nullopt (the default: no promise):
  // Listed() is asked for every tool on every tools/list. A guard that keeps the default
  // Listed() may return a constant.
  virtual std::optional<uint64_t> ListingGeneration(const SessionInfo& /*session*/) const {
    return std::nullopt;
  }
  // On the child's result, a JSON object of at most the gateway's size bound. nullopt:
  // passed to the client — as `result_json` holds it after every guard: a guard may put an
  // equivalent form of its own in its place (Skarbiec's exact envelopes), which is then also
  // what the log records.
  virtual std::optional<Refusal> OnResult(const SessionInfo& /*session*/,
                                          const CatalogTool& /*tool*/,
                                          std::string& /*result_json*/) {
    return std::nullopt;
  }
  // Whether this guard's refusal, when an earlier guard refused the call first, replaces
  // that refusal's client text (not its recorded reason). Asked only after an earlier
  // refusal, so BeforeCall must have no effects a refused call should not have.
  virtual bool ConcealsEarlierRefusals() const { return false; }
  // Whether the child's progress notifications for a call of `tool` reach the client. A
  // surface whose results are checked whole cannot have its numbers relayed unchecked.
  virtual bool RelaysProgress(const CatalogTool& /*tool*/) const { return true; }
};

}  // namespace las::tools
