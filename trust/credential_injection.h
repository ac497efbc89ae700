// Filling credential-templated arguments of a tool call.
//
// A signed ToolBinding may map argument names to credential names
// ({"api_key": "most.api-key"}). For such a tool, Las — never the model — provides those
// arguments: a call whose arguments already contain a templated argument name is refused
// with kCredentialOverride (never merged, never silently overwritten, so a model cannot
// probe or redirect which credential is used), otherwise each templated argument is set to
// the value the resolver returns for its credential name.
//
// The arguments must be a strict JSON object (trust/strict_json.h: duplicate keys are
// refused, so "one reader saw the override, another did not" cannot happen); empty text
// means no arguments ({}). Anything else is kArgumentsInvalid.
//
// Secrets: details name arguments and credentials, never a value (neither the resolved
// secret nor the model-supplied value). The returned text contains the secrets; the
// caller must send it to the child only and never log it (log the request before
// injection).
//
// Thread safety: free function; the resolver is called on the caller's thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trust/manifest.h"
#include "trust/reason.h"

namespace las::trust {

// credential name -> secret value, or nullopt if unavailable (kCredentialUnavailable).
using CredentialResolver = std::function<std::optional<std::string>(std::string_view credential_name)>;

// Whether JSON text can carry `value` as a string: well-formed UTF-8. A credential that is
// not is refused at every call (kCredentialUnavailable); `las check` says so beforehand.
bool IsCarriableCredential(std::string_view value);

// The argument names `tool`'s credential templates fill (what ValidateInjectedArguments
// calls `filled`).
std::vector<std::string> FilledArguments(const ToolBinding& tool);

// The arguments JSON text with every templated argument filled in, or a rejection.
VerdictOr<std::string> InjectCredentials(std::string_view arguments_json, const ToolBinding& tool,
                                         const CredentialResolver& resolve);

}  // namespace las::trust
