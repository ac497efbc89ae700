#include "trust/skarbiec_policy.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "trust/digest.h"
#include "trust/strict_json_internal.h"
#include "trust/tool_binding_check.h"

namespace las::trust {
namespace {

using internal::Json;

// The pinned definitions. A bounded taxonomy value in the schema repeats the rule that
// CheckSkarbiecArguments applies, so the signed schema and the local guard agree.
#define LAS_SKARBIEC_VALUE \
  R"({"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z0-9][a-z0-9._:-]{0,63}$"})"

constexpr std::array<PinnedTool, 3> kPinned = {
    PinnedTool{"capability_available", "Tell whether a capability could be granted.",
               R"({"type":"object","properties":{"purpose":)" LAS_SKARBIEC_VALUE
               R"(,"resource":)" LAS_SKARBIEC_VALUE R"(,"target":)" LAS_SKARBIEC_VALUE
               R"(},"required":["purpose","resource","target"],"additionalProperties":false})"},
    PinnedTool{"capability_request",
               "Request a one-use, short-lived capability; returns an opaque id.",
               R"({"type":"object","properties":{"purpose":)" LAS_SKARBIEC_VALUE
               R"(,"resource":)" LAS_SKARBIEC_VALUE R"(,"target":)" LAS_SKARBIEC_VALUE
               R"(,"ttl_seconds":{"type":"integer","minimum":1,"maximum":60})"
               R"(,"use_count":{"type":"integer","minimum":1,"maximum":1})"
               R"(,"delegation_depth":{"type":"integer","minimum":0,"maximum":0})"
               R"(},"required":["purpose","resource","target","ttl_seconds","use_count",)"
               R"("delegation_depth"],"additionalProperties":false})"},
    PinnedTool{"health", "Report the capability broker's health.",
               R"({"type":"object","properties":{},"required":[],"additionalProperties":false})"},
};
#undef LAS_SKARBIEC_VALUE

constexpr std::array<std::string_view, 3> kTaxonomyFields = {"purpose", "resource", "target"};

// Lowercased key fragments and value prefixes that suggest a credential.
constexpr std::array<std::string_view, 12> kCredentialKeys = {
    "token",  "secret", "password", "passwd",  "credential", "api_key",
    "apikey", "bearer", "authorization", "private_key", "cookie", "session_key"};

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool LooksLikeCredentialValue(std::string_view value) {
  const std::string lower = Lower(value.substr(0, 16));
  if (lower.rfind("bearer ", 0) == 0 || lower.rfind("basic ", 0) == 0) return true;
  if (value.find("-----BEGIN") != std::string_view::npos) return true;
  // A JWT: three base64url parts, the first one a JSON header ("eyJ").
  if (value.rfind("eyJ", 0) == 0 && std::count(value.begin(), value.end(), '.') == 2) return true;
  return false;
}

// True if a key or string anywhere in `value` (and in any string that itself parses as
// JSON, such as a text content item) looks like a credential.
bool LooksLikeCredential(const Json& value, int depth = 0) {
  if (depth > 16) return false;
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      const std::string lower = Lower(key);
      for (std::string_view fragment : kCredentialKeys) {
        if (lower.find(fragment) != std::string::npos) return true;
      }
      if (LooksLikeCredential(member, depth + 1)) return true;
    }
    return false;
  }
  if (value.is_array()) {
    for (const auto& item : value) {
      if (LooksLikeCredential(item, depth + 1)) return true;
    }
    return false;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (LooksLikeCredentialValue(text)) return true;
    if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
      Result<Json> inner = internal::ParseStrictJson(text);
      if (inner.ok() && LooksLikeCredential(*inner, depth + 1)) return true;
    }
  }
  return false;
}

bool IsInteger(const Json& value) {
  return value.is_number_integer() || value.is_number_unsigned();
}

// Set of names as one string, for details.
std::string Keys(const Json& object) {
  std::string out;
  for (const auto& [key, member] : object.items()) {
    (void)member;
    out += (out.empty() ? "" : ", ") + key;
  }
  return out;
}

bool IsOpaqueCapabilityId(std::string_view id) {
  if (id.size() < 8 || id.size() > 68 || id.rfind("cap-", 0) != 0) return false;
  return std::all_of(id.begin() + 4, id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// Checks the tool's inner envelope (the parsed text item). Empty: it matches.
std::string EnvelopeProblem(std::string_view tool, const Json& envelope) {
  if (!envelope.is_object()) return "the text item is not a JSON object";
  if (tool == kSkarbiecHealth) {
    if (envelope.size() != 1 || !envelope.contains("status")) {
      return "health must be exactly {status}; got {" + Keys(envelope) + "}";
    }
    const Json& status = envelope["status"];
    if (!status.is_string() ||
        (status != "ok" && status != "degraded" && status != "unavailable")) {
      return "health status must be \"ok\", \"degraded\" or \"unavailable\"";
    }
    return "";
  }
  if (tool == kSkarbiecAvailable) {
    if (envelope.size() != 1 || !envelope.contains("available")) {
      return "capability_available must be exactly {available}; got {" + Keys(envelope) + "}";
    }
    if (!envelope["available"].is_boolean()) return "available must be a boolean";
    return "";
  }
  if (tool == kSkarbiecRequest) {
    if (envelope.size() != 2 || !envelope.contains("capability_id") ||
        !envelope.contains("expires_in_seconds")) {
      return "capability_request must be exactly {capability_id, expires_in_seconds}; got {" +
             Keys(envelope) + "}";
    }
    const Json& id = envelope["capability_id"];
    if (!id.is_string() || !IsOpaqueCapabilityId(id.get_ref<const std::string&>())) {
      return "capability_id must be \"cap-\" followed by 4..64 of [A-Za-z0-9_-]";
    }
    const Json& expires = envelope["expires_in_seconds"];
    if (!IsInteger(expires) || expires.get<int64_t>() < 1 ||
        expires.get<int64_t>() > kSkarbiecMaxTtlSeconds) {
      return "expires_in_seconds must be an integer 1..60";
    }
    return "";
  }
  return "no envelope is defined for this tool";
}

Verdict ParseList(const Json& root, std::string_view field,
                  std::set<std::string, std::less<>>& out) {
  const std::string name(field);
  auto it = root.find(name);
  if (it == root.end() || !it->is_array() || it->empty()) {
    return Reject(Reason::kPolicyInvalid,
                  "skarbiec taxonomy: $." + name + " must be a non-empty array of strings");
  }
  if (it->size() > kSkarbiecMaxTaxonomyEntries) {
    return Reject(Reason::kPolicyInvalid, "skarbiec taxonomy: $." + name + " has more than " +
                                              std::to_string(kSkarbiecMaxTaxonomyEntries) +
                                              " values");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& value = (*it)[i];
    const std::string path = "$." + name + "[" + std::to_string(i) + "]";
    if (!value.is_string() || !IsSkarbiecValue(value.get_ref<const std::string&>())) {
      return Reject(Reason::kPolicyInvalid,
                    "skarbiec taxonomy: " + path +
                        " must be 1..64 bytes of [a-z0-9._:-] starting with [a-z0-9]");
    }
    if (!out.insert(value.get<std::string>()).second) {
      return Reject(Reason::kPolicyInvalid, "skarbiec taxonomy: " + path + " is a duplicate");
    }
  }
  return Verdict::Accept();
}

}  // namespace

std::span<const PinnedTool> SkarbiecPinnedTools() { return kPinned; }

const PinnedTool* FindSkarbiecPinnedTool(std::string_view name) {
  for (const PinnedTool& tool : kPinned) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

Verdict CheckSkarbiecBinding(const SurfaceBinding& surface) {
  for (const ToolBinding& tool : surface.tools) {
    const PinnedTool* pinned = FindSkarbiecPinnedTool(tool.name);
    if (pinned == nullptr) {
      return Reject(Reason::kPolicyToolNotAllowed,
                    "skarbiec: the release binds tool \"" + tool.name +
                        "\"; Las permits only health, capability_available and "
                        "capability_request");
    }
    Result<Sha256Digest> schema = CanonicalSha256(pinned->input_schema_json);
    Result<Sha256Digest> description = DescriptionDigest(std::string(pinned->description));
    if (!schema.ok() || !description.ok()) {  // the pins are constants: a bug, fail closed
      return Reject(Reason::kPolicyPinMismatch, "skarbiec: pinned definition does not digest");
    }
    if (tool.input_schema_sha256 != *schema) {
      return Reject(Reason::kPolicyPinMismatch,
                    "skarbiec: tool " + tool.name + " input schema sha256 " +
                        Sha256Hex(tool.input_schema_sha256) + " is not the pinned " +
                        Sha256Hex(*schema));
    }
    if (tool.description_sha256 != *description) {
      return Reject(Reason::kPolicyPinMismatch,
                    "skarbiec: tool " + tool.name + " description sha256 " +
                        Sha256Hex(tool.description_sha256) + " is not the pinned " +
                        Sha256Hex(*description));
    }
    if (!tool.credential_templates.empty()) {
      return Reject(Reason::kPolicyPinMismatch,
                    "skarbiec: tool " + tool.name + " may not carry credential templates");
    }
  }
  return Verdict::Accept();
}

bool IsSkarbiecValue(std::string_view value) {
  if (value.empty() || value.size() > kSkarbiecMaxValueBytes) return false;
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(value.front())) return false;
  return std::all_of(value.begin(), value.end(), [&](char c) {
    return lower_or_digit(c) || c == '.' || c == '_' || c == ':' || c == '-';
  });
}

VerdictOr<SkarbiecTaxonomy> ParseSkarbiecTaxonomy(std::string_view bytes) {
  return internal::ParseStrictDocument<SkarbiecTaxonomy>(
      bytes, kSkarbiecMaxPolicyBytes, Reason::kPolicyInvalid, "skarbiec taxonomy",
      [](const Json& root) -> VerdictOr<SkarbiecTaxonomy> {
        if (!root.is_object()) {
          return Reject(Reason::kPolicyInvalid, "skarbiec taxonomy: not a JSON object");
        }
        for (const auto& [key, value] : root.items()) {
          (void)value;
          if (key != "schema_version" && key != "purposes" && key != "resources" &&
              key != "targets") {
            return Reject(Reason::kPolicyInvalid,
                          "skarbiec taxonomy: unknown field $." + key);
          }
        }
        auto version = root.find("schema_version");
        if (version == root.end() || !IsInteger(*version) || *version != 1) {
          return Reject(Reason::kPolicyInvalid, "skarbiec taxonomy: $.schema_version must be 1");
        }
        SkarbiecTaxonomy taxonomy;
        LAS_RETURN_IF_REJECTED(ParseList(root, "purposes", taxonomy.purposes));
        LAS_RETURN_IF_REJECTED(ParseList(root, "resources", taxonomy.resources));
        LAS_RETURN_IF_REJECTED(ParseList(root, "targets", taxonomy.targets));
        return taxonomy;
      });
}

VerdictOr<SkarbiecTaxonomy> LoadSkarbiecTaxonomy(const std::string& path,
                                                 const SecureFileOptions& options) {
  SecureFileOptions bounded = options;
  bounded.max_bytes = std::min(options.max_bytes, kSkarbiecMaxPolicyBytes);
  VerdictOr<std::string> bytes = ReadSecureFile(path, "skarbiec taxonomy", bounded);
  if (!bytes.ok()) return bytes.verdict();
  return ParseSkarbiecTaxonomy(*bytes);
}

Verdict CheckSkarbiecArguments(std::string_view tool, std::string_view arguments_json,
                               const SkarbiecTaxonomy* taxonomy) {
  if (FindSkarbiecPinnedTool(tool) == nullptr) {
    return Reject(Reason::kPolicyToolNotAllowed, "skarbiec: tool is not permitted");
  }
  Json args = Json::object();
  if (!arguments_json.empty()) {
    Result<Json> parsed = internal::ParseStrictJson(arguments_json);
    if (!parsed.ok() || !parsed->is_object()) {
      return Reject(Reason::kArgumentsInvalid, "skarbiec: arguments must be a strict JSON object");
    }
    args = std::move(parsed).value();
  }
  if (tool == kSkarbiecHealth) {
    if (!args.empty()) {
      return Reject(Reason::kArgumentsSchemaViolation, "skarbiec: health takes no arguments");
    }
    return Verdict::Accept();
  }
  if (taxonomy == nullptr) {
    return Reject(Reason::kPolicyUnavailable,
                  "skarbiec: no local taxonomy is configured; capability calls are refused");
  }
  const bool request = tool == kSkarbiecRequest;
  for (const auto& [key, value] : args.items()) {
    (void)value;
    const bool known =
        std::find(kTaxonomyFields.begin(), kTaxonomyFields.end(), key) != kTaxonomyFields.end() ||
        (request && (key == "ttl_seconds" || key == "use_count" || key == "delegation_depth"));
    if (!known) {
      return Reject(Reason::kArgumentsSchemaViolation,
                    "skarbiec: " + std::string(tool) + " takes no argument named like the one sent");
    }
  }
  const std::set<std::string, std::less<>>* allowed[] = {&taxonomy->purposes,
                                                         &taxonomy->resources, &taxonomy->targets};
  for (size_t i = 0; i < kTaxonomyFields.size(); ++i) {
    const std::string field(kTaxonomyFields[i]);
    auto it = args.find(field);
    if (it == args.end() || !it->is_string()) {
      return Reject(Reason::kSkarbiecTaxonomy, "skarbiec: " + field + " must be a string");
    }
    const auto& value = it->get_ref<const std::string&>();
    if (!IsSkarbiecValue(value)) {
      return Reject(Reason::kSkarbiecTaxonomy,
                    "skarbiec: " + field +
                        " must be 1..64 bytes of [a-z0-9._:-] starting with [a-z0-9]");
    }
    if (allowed[i]->count(value) == 0) {
      return Reject(Reason::kSkarbiecTaxonomy,
                    "skarbiec: " + field + " \"" + value + "\" is not in the local taxonomy");
    }
  }
  if (!request) return Verdict::Accept();

  auto ttl = args.find("ttl_seconds");
  if (ttl == args.end() || !IsInteger(*ttl) || ttl->get<int64_t>() < 1 ||
      ttl->get<int64_t>() > kSkarbiecMaxTtlSeconds) {
    return Reject(Reason::kSkarbiecTtl, "skarbiec: ttl_seconds must be an integer 1..60");
  }
  auto uses = args.find("use_count");
  if (uses == args.end() || !IsInteger(*uses) || uses->get<int64_t>() != 1) {
    return Reject(Reason::kSkarbiecUseCount, "skarbiec: use_count must be exactly 1");
  }
  auto depth = args.find("delegation_depth");
  if (depth == args.end() || !IsInteger(*depth) || depth->get<int64_t>() != 0) {
    return Reject(Reason::kSkarbiecDelegationDepth,
                  "skarbiec: delegation_depth must be exactly 0");
  }
  return Verdict::Accept();
}

Verdict CheckSkarbiecResult(std::string_view tool, std::string_view result_json,
                            std::string* relayed) {
  Result<Json> parsed = internal::ParseStrictJson(result_json);
  if (!parsed.ok()) {
    return Reject(Reason::kSkarbiecResultEnvelope, "skarbiec: the result is not strict JSON");
  }
  const Json& result = *parsed;
  auto refuse = [&](const std::string& why) {
    if (LooksLikeCredential(result)) {
      return Reject(Reason::kSkarbiecCredentialInResult,
                    "skarbiec: " + std::string(tool) +
                        " result refused: something in it looks like a credential");
    }
    return Reject(Reason::kSkarbiecResultEnvelope,
                  "skarbiec: " + std::string(tool) + " result refused: " + why);
  };
  if (FindSkarbiecPinnedTool(tool) == nullptr) return refuse("the tool is not permitted");
  if (!result.is_object() || result.size() != 1 || !result.contains("content")) {
    return refuse("the result must be exactly {content}");
  }
  const Json& content = result["content"];
  if (!content.is_array() || content.size() != 1) {
    return refuse("content must hold exactly one item");
  }
  const Json& item = content[0];
  if (!item.is_object() || item.size() != 2 || item.value("type", Json()) != "text" ||
      !item.contains("text") || !item["text"].is_string()) {
    return refuse("the content item must be exactly {type: \"text\", text}");
  }
  Result<Json> envelope = internal::ParseStrictJson(item["text"].get_ref<const std::string&>());
  if (!envelope.ok()) return refuse("the text item is not strict JSON");
  if (std::string problem = EnvelopeProblem(tool, *envelope); !problem.empty()) {
    return refuse(problem);
  }
  if (relayed != nullptr) {
    const Json text_item = {{"type", "text"}, {"text", envelope->dump()}};
    *relayed = Json{{"content", Json::array({text_item})}}.dump();
  }
  return Verdict::Accept();
}

}  // namespace las::trust
