// What an agent may not see of an event in the log: the members of its payload that belong
// to other agents. las__inspect_events (the las.admin tools, docs/SOURCES.md) shows every
// event to any agent holding root, and root can be delegated by agents; without this, a
// root holder read every agent's private state, the messages between others, handle
// contents and other agents' call arguments and results there (probe DA1). The operator
// reads the log whole with `las replay`.
//
//   StateWritten of private state another agent owns   key, value, value_sha256
//   MessageSent the agent neither sent nor receives    subject, body
//   HandleCreated another agent owns                   handle_id, content, content_sha256
//   ToolCallRequested of another agent's call          arguments
//   ToolCallCompleted of another agent's call          result
//   ToolCallDenied of another agent's call             detail (it names argument keys)
//
// A SHA-256 goes too, and a handle id (a SHA-256 over its owner and content): either would
// confirm a guess of a short value, a PIN (probe DD5). Everything else of an event — kind,
// actor, session, sequence, sizes, other ids, the chain hashes — stays.
#pragma once

#include <string_view>
#include <vector>

#include "log/event.h"

namespace las::tools {

std::vector<std::string_view> WithheldFrom(const log::StoredEvent& event,
                                           std::string_view agent_id);

}  // namespace las::tools
