#include "trust/credential_injection.h"

#include "base/json_string.h"
#include "base/utf8.h"
#include "trust/strict_json_internal.h"

namespace las::trust {

bool IsCarriableCredential(std::string_view value) {
  for (size_t pos = 0; pos < value.size();) {
    if (!DecodeUtf8(value, &pos)) return false;
  }
  return true;
}

std::vector<std::string> FilledArguments(const ToolBinding& tool) {
  std::vector<std::string> names;
  for (const auto& [argument, credential] : tool.credential_templates) names.push_back(argument);
  return names;
}

VerdictOr<std::string> InjectCredentials(std::string_view arguments_json, const ToolBinding& tool,
                                         const CredentialResolver& resolve) {
  using internal::Json;
  Json args = Json::object();
  if (!arguments_json.empty()) {
    Result<Json> parsed = internal::ParseStrictJson(arguments_json);
    if (!parsed.ok()) {
      return Reject(Reason::kArgumentsInvalid, "tool " + tool.name + ": arguments are not strict JSON");
      // (the parser's own message can quote the input, which may hold a secret)
    }
    if (!parsed->is_object()) {
      return Reject(Reason::kArgumentsInvalid, "tool " + tool.name + ": arguments must be a JSON object");
    }
    args = std::move(parsed).value();
  }
  // Refuse first, for every templated argument, before resolving any secret.
  for (const auto& [argument, credential] : tool.credential_templates) {
    if (args.contains(argument)) {
      return Reject(Reason::kCredentialOverride,
                    "tool " + tool.name + ": argument \"" + argument +
                        "\" is filled by Las from credential \"" + credential +
                        "\"; a call may not supply it");
    }
  }
  // The filled members go first, then the client's members exactly as sent: the tree
  // above only checked them, and its numbers are doubles (2^64 or 1.0000000000000001 would
  // reach the child as other numbers than the log records).
  std::string out = "{";
  for (const auto& [argument, credential] : tool.credential_templates) {
    std::optional<std::string> secret = resolve(credential);
    if (!secret) {
      return Reject(Reason::kCredentialUnavailable,
                    "tool " + tool.name + ": credential \"" + credential + "\" (for argument \"" +
                        argument + "\") is not available");
    }
    if (!IsCarriableCredential(*secret)) {
      // Such a secret cannot be carried in JSON; say which, not what.
      return Reject(Reason::kCredentialUnavailable,
                    "tool " + tool.name + ": a credential value is not valid UTF-8");
    }
    if (out.size() > 1) out += ',';
    AppendJsonString(argument, out);
    out += ':';
    AppendJsonString(*secret, out);
  }
  const size_t open = arguments_json.find('{');
  const std::string_view rest =
      open == std::string_view::npos ? std::string_view("}") : arguments_json.substr(open + 1);
  const bool client_members = !args.empty();
  if (client_members && out.size() > 1) out += ',';
  out += rest;  // the client's members and its closing brace, whitespace and all
  return out;
}

}  // namespace las::trust
