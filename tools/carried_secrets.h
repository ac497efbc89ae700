// The secrets a configuration value carries, whatever its variable is named: a child given
// OPENAPI_MCP_HEADERS='{"Authorization":"Bearer TOKEN"}' or
// DATABASE_URL=postgres://app:PASSWORD@db holds TOKEN and PASSWORD, and must not hand them
// back (tools/credentials.h, CredentialValuesOf). Only the secret parts are returned, never
// the public rest — a host, a header name, a build id — whose mention must not refuse a
// result (probe JF2).
//
// What counts:
// - the passwords of connection strings (tools/connection_secrets.h): a URL's, one written
//   without a scheme (Go's, Oracle's), a .pgpass line's; a URL's user given without a
//   password when it looks like a token ("https://ghp_TOKEN@github.com");
// - the value of each member or pair whose name is a secret's (SecretName, and ODBC's
//   "PWD" unless its value is a path): in a JSON object at any depth (its strings, when an
//   array: "apiKeys": [...]), as {"name": NAME, "value": VALUE}, or in text: NAME=VALUE,
//   NAME:VALUE, or NAME followed by its value ("password X" as .netrc writes it,
//   "--password X", "X-Api-Key: X"), in items separated by ',', ';', '&' or line breaks;
//   whole when quoted or braced (NAME="a;b c", NAME='it''s', NAME="""x""", NAME={a;b}), when
//   it is the rest of a "NAME: VALUE" or "NAME = VALUE" line (YAML, INI; a "# comment"
//   left out) or the lines below "NAME:" or a block scalar "NAME: |"; in XML
//   (<password>X</password>, <add key="ApiKey" value="X"/>); its escapes undone as its
//   reader undoes them (percent-encoding, a backslash, a double-quoted string's);
// - the word after an authorization scheme ("Bearer X", "Basic X");
// - what such a value holds in base64 (Basic's and docker's "user:PASSWORD" by its
//   password, .npmrc's _password, a Kubernetes Secret's data, a PEM key: probe JM2).
// Not a reference to a secret kept elsewhere ("${DB_PASSWORD}", "op://...", an ARN:
// IsSecretReference) but by the literal it falls back on ("${NAME:-VALUE}"); and under a
// name that may name something public ("key", "session", "credentials": KindOfSecretName)
// or after a bare name ("token build-robot-2024"), not a value that holds no run reading
// as no word (HasRandomRun: a path, a URL, a name of words; probes JP2-JP6, JS1-JS9).
// JSON strings are read as decoded (a URL whose slashes PHP escaped). The work and the
// findings are bounded per value — 64 secrets of at most 8 KiB, 2 KiB looked at per URL,
// 4,096 quoted or XML values, 256 values on the lines below their names, JSON 32 levels
// deep — so a hostile or huge value costs linear time (probe JH1: one of 16 KiB took
// gigabytes at every start).
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/secret_name.h"

namespace las::tools {

// The secrets `value` carries (above), each once, in the order found, trimmed of blanks
// and quotes: URL passwords apart — a password is one however it looks; a member's value
// or a URL's user may be a count, a flag or a name, which the caller judges
// (LooksLikeAToken).
struct CarriedSecrets {
  std::vector<std::string> url_passwords;
  std::vector<std::string> values;
  // Whether the value is a list of NAME=VALUE pairs, none a secret's: libpq's
  // "host=db port=5432 user=etl" names only public things (probe JM5).
  bool only_public_pairs = false;
};
CarriedSecrets SecretsCarriedIn(std::string_view value);

}  // namespace las::tools
