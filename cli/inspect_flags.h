// The flags of `las inspect` views (cli/inspect_command.cc registers them) and the views
// of the agents' coordination state (cli/inspect_coordination.cc).
#pragma once

#include <optional>
#include <string>

namespace las::cli {

struct InspectFlags {
  std::string log_dir;
  std::optional<std::string> call_id;  // `calls --call`: given (even as "") or not
  std::optional<std::string> agent;    // `messages --agent`: one recipient's mailbox
  bool values = false;                 // `state --values`: each value in the JSON
  bool json = false;
};

// The blackboard and every agent's private state: per key its current version.
int InspectState(const InspectFlags& flags);
// Every message (or one recipient's): sender, subject, state now, sizes, no bodies.
int InspectMessages(const InspectFlags& flags);
// Every handle: owner, media type, size, digest, no contents.
int InspectHandles(const InspectFlags& flags);

}  // namespace las::cli
