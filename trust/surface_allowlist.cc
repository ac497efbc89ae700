#include "trust/surface_allowlist.h"

#include <algorithm>

#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using internal::Json;

bool IsToolName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
  });
}

Verdict ParseList(const Json& value, const std::string& field, ToolAllowlist& out) {
  if (!value.is_array()) {
    return Reject(Reason::kPolicyInvalid, "surface policy: $." + field + " must be an array");
  }
  if (value.size() > kMaxAllowlistEntries) {
    return Reject(Reason::kPolicyInvalid, "surface policy: $." + field + " has more than " +
                                              std::to_string(kMaxAllowlistEntries) + " names");
  }
  out.clear();
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string path = "$." + field + "[" + std::to_string(i) + "]";
    if (!value[i].is_string() || !IsToolName(value[i].get_ref<const std::string&>())) {
      return Reject(Reason::kPolicyInvalid,
                    "surface policy: " + path + " must be a tool name ([A-Za-z0-9_.-]{1,128})");
    }
    if (!out.insert(value[i].get<std::string>()).second) {
      return Reject(Reason::kPolicyInvalid, "surface policy: " + path + " is a duplicate");
    }
  }
  return Verdict::Accept();
}

}  // namespace

SurfaceAllowlists DefaultSurfaceAllowlists() {
  SurfaceAllowlists lists;
  lists.tama = {"list_hooks", "inspect_hook", "get_hook", "hook_status"};
  lists.warsztat = {"list_proposals", "get_proposal", "create_proposal", "proposal_status"};
  return lists;
}

VerdictOr<SurfaceAllowlists> ParseSurfaceAllowlists(std::string_view bytes) {
  return internal::ParseStrictDocument<SurfaceAllowlists>(
      bytes, kMaxSurfacePolicyBytes, Reason::kPolicyInvalid, "surface policy",
      [](const Json& root) -> VerdictOr<SurfaceAllowlists> {
        if (!root.is_object()) {
          return Reject(Reason::kPolicyInvalid, "surface policy: not a JSON object");
        }
        auto version = root.find("schema_version");
        if (version == root.end() || !version->is_number_unsigned() || *version != 1) {
          return Reject(Reason::kPolicyInvalid, "surface policy: $.schema_version must be 1");
        }
        SurfaceAllowlists lists = DefaultSurfaceAllowlists();
        for (const auto& [key, value] : root.items()) {
          if (key == "schema_version") continue;
          if (key == "tama") {
            LAS_RETURN_IF_REJECTED(ParseList(value, key, lists.tama));
          } else if (key == "warsztat") {
            LAS_RETURN_IF_REJECTED(ParseList(value, key, lists.warsztat));
          } else {
            return Reject(Reason::kPolicyInvalid, "surface policy: unknown field $." + key);
          }
        }
        return lists;
      });
}

VerdictOr<SurfaceAllowlists> LoadSurfaceAllowlists(const std::string& path,
                                                   const SecureFileOptions& options) {
  SecureFileOptions bounded = options;
  bounded.max_bytes = std::min(options.max_bytes, kMaxSurfacePolicyBytes);
  VerdictOr<std::string> bytes = ReadSecureFile(path, "surface policy", bounded);
  if (!bytes.ok()) return bytes.verdict();
  return ParseSurfaceAllowlists(*bytes);
}

Verdict CheckAllowlisted(std::string_view surface, const ToolAllowlist& allowlist,
                         std::string_view tool) {
  if (allowlist.count(tool) == 0) {
    return Reject(Reason::kPolicyToolNotAllowed,
                  std::string(surface) + ": tool \"" + std::string(tool) +
                      "\" is not in the local allowlist");
  }
  return Verdict::Accept();
}

}  // namespace las::trust
