// Whether a name says its value is a secret: an environment variable's, a JSON member's,
// a header's or a pair's (tools/carried_secrets.h). Pure; thread-safe.
#pragma once

#include <string_view>

namespace las::tools {

// Whether a header, parameter or member name says its value is a secret. Its last word
// decides (words split at '-', '_', '.', spaces and lower-to-upper case: "privateKey"),
// in any case: "key"/"keys" (not a partition, sort, primary, public, cache... key),
// "pwd", "pass", "auth", "authorization", "cookie(s)", "credential(s)", "session",
// "sessionid", "sid" (not an account's: Twilio's id), "dsn", or one ending in
// "password(s)", "passwd", "passphrase", "secret(s)" (not Helm's "existingSecret"),
// "token(s)" or "apikey(s)"; and kubeconfig's "client-key-data". Not "tokenizer",
// "auth_url", "session_name", "secret_name", "partition_key" (probe JH4).
bool SecretName(std::string_view name);

// How surely such a name's value is a secret. kSecret: a password's, a token's, a
// signature's, whatever the value looks like. kMayName: a key's, a session's, a cookie's,
// a credential's, auth's, a DSN's — often the name of something public instead
// ("session: default-session-2024", "key: node-modules-v2-linux-x64", a credentials file's
// path: probes JP2, JP4), so their value counts only when it holds a run that reads as
// no word (HasRandomRun, tools/secret_text.h).
enum class SecretNameKind { kNone, kMayName, kSecret };
SecretNameKind KindOfSecretName(std::string_view name);

}  // namespace las::tools
