// The coordination tools (docs/STATE.md): private state and the blackboard
// (las__state_get/set/append/cas/list/history), messages (las__message_send/list/read/
// complete/defer) and handles (las__handle_read). AddCoordinationTools registers all of
// them over one shared Coordination (tools/coordination.h).
//
// Refusals answer a tool error (isError true) whose structuredContent.error.code is a
// stable code: invalid-arguments, invalid-value, value-too-large, version-conflict (with
// current_version), state-quota-exceeded (with held_bytes and quota_bytes), not-an-array,
// not-a-number, not-an-object, mailbox-full (with limit; and sender_limit when the sender
// holds its half), message-not-found, message-completed, handle-not-found. A log failure is
// the generic JSON-RPC error "Tool call failed".
#pragma once

#include <memory>

#include "tools/builtin_tools.h"
#include "tools/coordination.h"
#include "tools/las_tools.h"

namespace las::tools {

// `context` and everything it refers to must outlive `tools`.
void AddCoordinationTools(BuiltinTools& tools, const LasToolContext& context,
                          CoordinationOptions options = {});

// The parts, for AddCoordinationTools.
void AddStateTools(BuiltinTools& tools, std::shared_ptr<Coordination> coordination);
void AddMessageTools(BuiltinTools& tools, std::shared_ptr<Coordination> coordination);
void AddHandleTools(BuiltinTools& tools, std::shared_ptr<Coordination> coordination);

// The item bound of the list and history tools' pages (tools/page_budget.h has the bytes).
inline constexpr size_t kMaxPageItems = 100;

}  // namespace las::tools
