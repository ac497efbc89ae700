#include "tools/grant_policy.h"

#include "base/printable_text.h"
#include "base/utf8.h"

namespace las::tools {

namespace {

// Unicode's space separators (Zs), line and paragraph separators, and U+2800 BRAILLE
// PATTERN BLANK (a symbol, but drawn as nothing: probe DA3): at either end of an id they
// display as nothing, so "bob" and "bob " would be two agents that look alike.
bool IsSpace(char32_t c) {
  return c == U' ' || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x2800 || c == 0x3000;
}

char32_t LastCodePoint(std::string_view text) {
  size_t start = text.size() - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return DecodeUtf8(text, &start).value_or(0);
}

}  // namespace

bool IsValidAgentId(std::string_view agent_id) {
  if (agent_id.empty() || agent_id.size() > kMaxAgentIdBytes || !IsPrintableText(agent_id)) {
    return false;
  }
  size_t first = 0;
  return !IsSpace(DecodeUtf8(agent_id, &first).value_or(0)) && !IsSpace(LastCodePoint(agent_id));
}

std::string AgentIdRefusal(std::string_view refused) {
  return std::string(kAgentIdRule) + ", not " + QuotedForTerminal(refused);
}

GrantPolicy GrantPolicyFor(const trust::Environment& environment) {
  GrantPolicy policy;
  if (auto it = environment.find("LAS_AGENT_ID"); it != environment.end() && !it->second.empty()) {
    policy.default_agent_id = it->second;
  }
  if (auto it = environment.find("LAS_DEFAULT_AGENT_GRANT");
      it != environment.end() && !it->second.empty()) {
    policy.default_agent_root = it->second == "root";
    policy.default_grant_unrecognized = it->second != "root" && it->second != "none";
  }
  return policy;
}

}  // namespace las::tools
