#include "trust/tool_binding_check.h"

#include <map>
#include <set>
#include <vector>

#include "base/printable_text.h"
#include "trust/strict_json.h"
#include "trust/strict_json_internal.h"

namespace las::trust {

Result<Sha256Digest> InputSchemaDigest(std::string_view input_schema_json) {
  return CanonicalSha256(input_schema_json);
}

Result<Sha256Digest> DescriptionDigest(const std::optional<std::string>& description) {
  if (!description) return CanonicalSha256("null");
  if (FindInvalidUtf8(*description)) return InvalidArgument("description is not valid UTF-8");
  // Encode the decoded string as a JSON string, then canonicalize (JCS escapes differ
  // from nlohmann's in nothing that matters once canonicalized again).
  return CanonicalSha256(internal::Json(*description).dump());
}

// Cut, so that a child cannot flood the log; `\` escaped, so that it cannot pass a written
// "\u{1B}" for an escaped ESC (probe BR2).
std::string ShownChildName(std::string_view child_name) {
  constexpr size_t kMaxShownBytes = 128;
  std::string quoted;
  for (char c : child_name.substr(0, kMaxShownBytes)) {
    if (c == '"' || c == '\\') quoted.push_back('\\');
    quoted.push_back(c);
  }
  std::string shown = EscapeForTerminal(quoted);
  if (child_name.size() > kMaxShownBytes) shown += "...";
  return shown;
}

Verdict CheckToolList(const SurfaceBinding& surface, std::span<const LiveTool> live) {
  // Every difference, keyed by tool name so the detail is in a stable order.
  std::multimap<std::string, std::string> differences;
  std::map<std::string, const LiveTool*> by_name;
  for (const LiveTool& tool : live) {
    if (!by_name.emplace(tool.name, &tool).second) {
      differences.emplace(tool.name,
                          "tool \"" + ShownChildName(tool.name) + "\" is listed twice by the child");
    }
  }
  for (const ToolBinding& bound : surface.tools) {
    auto it = by_name.find(bound.name);
    if (it == by_name.end()) {
      differences.emplace(bound.name, "missing tool \"" + bound.name + "\" (signed, not listed)");
      continue;
    }
    const LiveTool& tool = *it->second;
    Result<Sha256Digest> schema = InputSchemaDigest(tool.input_schema_json);
    if (!schema.ok()) {
      differences.emplace(bound.name, "tool \"" + bound.name + "\": inputSchema is not strict JSON");
    } else if (*schema != bound.input_schema_sha256) {
      differences.emplace(bound.name, "tool \"" + bound.name + "\": inputSchema sha256 " +
                                          Sha256Hex(*schema) + ", signed " +
                                          Sha256Hex(bound.input_schema_sha256));
    }
    Result<Sha256Digest> description = DescriptionDigest(tool.description);
    if (!description.ok()) {
      differences.emplace(bound.name, "tool \"" + bound.name + "\": description is not valid UTF-8");
    } else if (*description != bound.description_sha256) {
      differences.emplace(bound.name, "tool \"" + bound.name + "\": description sha256 " +
                                          Sha256Hex(*description) + ", signed " +
                                          Sha256Hex(bound.description_sha256));
    }
  }
  for (const auto& [tool_name, tool] : by_name) {
    if (surface.FindTool(tool_name) == nullptr) {
      differences.emplace(tool_name,
                          "extra tool \"" + ShownChildName(tool_name) + "\" (listed, not signed)");
    }
  }
  if (differences.empty()) return Verdict::Accept();
  std::string detail = "surface " + surface.name + ": ";
  size_t shown = 0;
  for (const auto& [tool_name, what] : differences) {
    if (shown == kMaxReportedToolDifferences) {
      detail += "; and " + std::to_string(differences.size() - shown) + " more";
      break;
    }
    if (shown++ > 0) detail += "; ";
    detail += what;
  }
  return Reject(Reason::kToolsMismatch, detail);
}

}  // namespace las::trust
