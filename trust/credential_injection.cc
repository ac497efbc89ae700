#include "trust/credential_injection.h"

#include <exception>

#include "trust/strict_json_internal.h"

namespace las::trust {

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
  for (const auto& [argument, credential] : tool.credential_templates) {
    std::optional<std::string> secret = resolve(credential);
    if (!secret) {
      return Reject(Reason::kCredentialUnavailable,
                    "tool " + tool.name + ": credential \"" + credential + "\" (for argument \"" +
                        argument + "\") is not available");
    }
    args[argument] = std::move(*secret);
  }
  try {
    return args.dump();
  } catch (const std::exception&) {
    // A secret that is not valid UTF-8 cannot be carried in JSON; say which, not what.
    return Reject(Reason::kCredentialUnavailable,
                  "tool " + tool.name + ": a credential value is not valid UTF-8");
  }
}

}  // namespace las::trust
