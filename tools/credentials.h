// Where credential templates get their values: the environment of Las. A credential named
// in a release (e.g. "most.api-key") is read from LAS_CREDENTIAL_<NAME>, the name upper-
// cased with every character outside [A-Z0-9] turned into '_' (LAS_CREDENTIAL_MOST_API_KEY).
// Values are secrets: they go to the child only, never to the log or stderr.
#pragma once

#include <string>
#include <string_view>

#include "trust/credential_injection.h"
#include "trust/environment.h"

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name);

// A resolver over `environment`, which must outlive it.
trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment);

}  // namespace las::tools
