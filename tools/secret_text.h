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

// Whether `text` holds a run of letters and digits that reads as neither a word nor a
// number: case changing inside a word ("AilJJwn0", "WAm"), digits between letters
// ("w2pqb0K18", "3xecvo", "29d56f41"). A token ("ghp_R8x2...", "sk_live_4eC39Hq...", a
// UUID, "hykdyd-3xecvo-Kawzut") holds one; a name of words and numbers
// ("svc-reporting-2024", "node-modules-v2-linux-x64", "WarehouseProd2024"), a path
// ("/etc/tls/node1.key") or a URL ("https://sso2.example.com/realms/acme") does not
// (probes JM5, JP2, JP4, JS1-JS3, JS8). A passphrase of words ("Mantle-Harbor-Tidal9")
// does not either.
bool HasRandomRun(std::string_view text);

// Whether `value` is a file's or object's path ("/var/secrets/acme-4f2b8c9d.json",
// "~/.ssh/id_ed25519", "avatars/3f2a9c1e-....png"): it names where a secret is, not the
// secret (probes JP2, JU8, JU9).
bool LooksLikeAPath(std::string_view value);

// Whether `value` names a secret kept elsewhere rather than holding one: a placeholder
// ("${DB_PASSWORD_V2}", "{{ secrets.X }}", "$(cat f)", "%(pw)s"), an HCL reference
// ("var.api_token_v2"), a shell variable ("$DB_PASSWORD_V2"), an ARN, a 1Password "op://" or Vault "vault:" reference, a Google
// Secret Manager name ("projects/p/secrets/s/versions/3") (probe JP3).
bool IsSecretReference(std::string_view value);

// The literal a reference falls back on, which is a value like any other (probe JS4):
// "${NAME:-VALUE}" and the shell's other forms, Spring's "${NAME:VALUE}", a template's
// "{{ env "NAME" | default "VALUE" }}"; empty when it has none.
std::string_view ReferenceDefault(std::string_view value);

}  // namespace las::tools
