// Reading the text of a configuration value as the program it configures reads it: quotes,
// escapes and encodings undone, and the tests that tell a secret's text from a name, a path
// or a reference to a secret kept elsewhere (tools/carried_secrets.h). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace las::tools {

// `text` without the blanks and quotes around it.
std::string_view TrimmedOfBlanksAndQuotes(std::string_view text);

// %XX undone (a '%' not followed by two hex digits stays).
std::string PercentDecoded(std::string_view text);
// A backslash before any character undone ("\:" of .pgpass, "\=" of .properties).
std::string BackslashUnescaped(std::string_view text);
// The escapes of a double-quoted string undone as JSON reads them (\" \\ \n \u0041 ...),
// as YAML, TOML and most shells' double quotes write them; empty if `text` is not that.
std::string DoubleQuotedUnescaped(std::string_view text);

// Text a secret holds in base64 (standard or URL-safe), decoded: "user:password" of an
// "Authorization: Basic" header, docker's config.json "auth" and .npmrc's "_auth";
// .npmrc's "_password"; a Kubernetes Secret's data; kubeconfig's client-key-data PEM
// (probe JM2). Empty when `text` is not base64 of printable text (a random token is not,
// but for a chance far below one in a million at the 12 characters looked at).
std::string Base64DecodedText(std::string_view text);

// A character of a name in NAME=VALUE, a DSN's user, a host.
bool IsNameChar(char c);
bool IsDigits(std::string_view text);

// Whether a piece of `text` between '-', '_' and '.' looks random: 10 or more characters
// mixing letters and digits, or 16 or more mixing cases. A URL's user "ghp_R8x2..." and an
// API key "sk_search_0123456789ab" do; a name of words and numbers
// ("svc-reporting-2024", "node-modules-v2-linux-x64", "ci-run-20240115-1234") or a path
// ("/etc/ssl/private/api-2024.key") does not (probes JM5, JP2, JP4).
bool HasTokenPiece(std::string_view text);

// Whether `value` names a secret kept elsewhere rather than holding one: a placeholder
// ("${DB_PASSWORD_V2}", "{{ secrets.X }}", "$(cat f)", "%(pw)s"), an HCL reference
// ("var.api_token_v2"), an ARN, a 1Password "op://" or Vault "vault:" reference, a Google
// Secret Manager name ("projects/p/secrets/s/versions/3") (probe JP3).
bool IsSecretReference(std::string_view value);

}  // namespace las::tools
