// The secrets a configuration value carries, whatever its variable is named: a child given
// OPENAPI_MCP_HEADERS='{"Authorization":"Bearer TOKEN"}' or
// DATABASE_URL=postgres://app:PASSWORD@db holds TOKEN and PASSWORD, and must not hand them
// back (tools/credentials.h, CredentialValuesOf). Only the secret parts are returned, never
// the public rest — a host, a header name, a build id — whose mention must not refuse a
// result (probe JF2).
//
// What counts:
// - the password of each URL with one ("scheme://user:PASSWORD@host"), as written and,
//   when percent-encoded, decoded — also a password holding '/', '?' or '#', which drivers
//   accept unencoded (probe JF1); not a port ("host:8080/path/@scope");
// - the value of each member or pair whose name speaks of a secret (SecretName): in a JSON
//   object, at any depth ({"headers":{"X-Api-Key":"..."}}), or in NAME=VALUE / NAME: VALUE
//   items separated by ',', ';', '&' or line breaks ("Cookie: sessionid=...");
// - the rest of an item that starts with an authorization scheme ("Bearer X", "Basic X").
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace las::tools {

// Whether a header, parameter or member name says its value is a secret, in any case:
// it holds "auth", "token", "secret", "passw", "pwd", "cookie", "session", "credential",
// "apikey", "api-key" or "api_key", or one of its parts (split at '-', '_', '.' and
// spaces) is "key" or ends in "accesskey" ("Ocp-Apim-Subscription-Key", "X-Access-Key").
bool SecretName(std::string_view name);

// The secrets `value` carries (above), each once, in the order found, trimmed of blanks
// and quotes: URL passwords apart — a password is one however it looks; a member's value
// may be a count or a flag, which the caller judges (LooksLikeAToken).
struct CarriedSecrets {
  std::vector<std::string> url_passwords;
  std::vector<std::string> values;
};
CarriedSecrets SecretsCarriedIn(std::string_view value);

}  // namespace las::tools
