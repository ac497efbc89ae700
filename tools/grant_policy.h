// GrantPolicy: the part of "who may call what" that is configuration, not events — the
// default agent's implicit root grant (docs/GRANTS.md §The default).
//
// The default agent is the one a session binds when the client names none: LAS_AGENT_ID,
// else "default". It holds an implicit root grant (every tool, like `las grant … --all`)
// unless LAS_DEFAULT_AGENT_GRANT is set to anything but "root" ("none" is the documented
// value; an unknown value fails closed, as "none"). Every other agent starts with nothing.
// A value type.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "trust/environment.h"

namespace las::tools {

struct GrantPolicy {
  std::string default_agent_id = "default";
  bool default_agent_root = true;
  // LAS_DEFAULT_AGENT_GRANT held a value other than "root" or "none" (taken as "none").
  bool default_grant_unrecognized = false;

  // True when `agent_id` is the default agent and its implicit root grant is on — and the
  // session did not give it up (`waived`: a bridged `las serve` whose own environment says
  // LAS_DEFAULT_AGENT_GRANT=none; SessionInfo::implicit_root_waived).
  bool ImplicitRoot(std::string_view agent_id, bool waived = false) const {
    return default_agent_root && !waived && agent_id == default_agent_id;
  }
};

// An agent id (bound at initialize, named by a grant, a rule or a message): 1 to 256 bytes
// of printable text (base/printable_text.h: well-formed UTF-8, no control characters, no
// bidirectional controls) that neither starts nor ends with a space character (U+0020,
// U+3000 and the other Unicode spaces). Ids are compared byte for byte: "é" and "e" +
// U+0301 are two agents (no Unicode normalization).
inline constexpr size_t kMaxAgentIdBytes = 256;
bool IsValidAgentId(std::string_view agent_id);
// kAgentIdRule and the id refused, quoted as a terminal may show it (at most 300 bytes of
// it: EscapeAndShorten).
std::string AgentIdRefusal(std::string_view refused);
inline constexpr const char* kAgentIdRule =
    "an agent id is 1 to 256 bytes of printable UTF-8 (no control or bidirectional control "
    "characters, none that display as nothing, no space at either end)";

// From LAS_AGENT_ID and LAS_DEFAULT_AGENT_GRANT (an empty value counts as unset).
GrantPolicy GrantPolicyFor(const trust::Environment& environment);

}  // namespace las::tools
