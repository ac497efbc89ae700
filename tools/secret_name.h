// Whether a name says its value is a secret: an environment variable's, a JSON member's,
// a header's or a pair's (tools/carried_secrets.h). Pure; thread-safe.
#pragma once

#include <string_view>

namespace las::tools {

// Whether a header, parameter or member name says its value is a secret. Its last word
// decides (words split at '-', '_', '.', spaces and lower-to-upper case: "privateKey"),
// in any case: "key"/"keys" (not a partition, sort, primary, public, cache... key),
// "pwd", "pass", "auth", "authorization", "cookie(s)", "credential(s)", "session",
// "sessionid", "sid" (not an account's: Twilio's id), "dsn", or one ending in "password(s)", "passwd", "passphrase",
// "secret(s)", "token(s)" or "apikey(s)"; and kubeconfig's "client-key-data". Not
// "tokenizer", "auth_url", "session_name", "secret_name", "partition_key" (probe JH4).
bool SecretName(std::string_view name);

}  // namespace las::tools
