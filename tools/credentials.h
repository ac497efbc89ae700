// Where credential templates get their values: the environment of Las. A credential named
// in a release (e.g. "most.api-key") is read from LAS_CREDENTIAL_<NAME>, the name upper-
// cased with every character outside [A-Z0-9] turned into '_' (LAS_CREDENTIAL_MOST_API_KEY).
// Values are secrets: they go to the child only, never to the log or stderr.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trust/credential_injection.h"
#include "trust/environment.h"

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name);

// A resolver over `environment`, which must outlive it. Each value it hands out is also
// added to `*given` when that is not null (to check the child's answer against).
trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment,
                                                 std::vector<std::string>* given = nullptr);

// Whether a child's result (JSON text) carries one of the credential `values` it was given,
// as raw bytes or as a JSON string spells it: the gateway then refuses the result
// (credential-in-result), so the secret reaches neither the client nor the log. Values
// shorter than kMinCheckedCredentialBytes are not looked for (they would match by chance);
// other encodings (base64, hex, split across strings) are not recognized.
inline constexpr size_t kMinCheckedCredentialBytes = 4;
bool EchoesCredential(std::string_view result_json, const std::vector<std::string>& values);

}  // namespace las::tools
