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
//   accept unencoded (probe JF1), or ',' and ';' (JM1); not a port ("host:8080/path/@scope"),
//   not an '@' that starts a path segment ("/npm/@scope"), not inside an IPv6 host; and a
//   URL's user name given without a password when a piece of it looks like a token
//   ("https://ghp_TOKEN@github.com", not "ssh://deploy-user-2024@git": JM5);
// - the password of a connection string written without a scheme: Go's MySQL DSN
//   "user:PASSWORD@tcp(host:3306)/db", "user:PASSWORD@host:5432/db", Oracle's
//   "user/PASSWORD@//host:1521/service", "jdbc:oracle:thin:user/PASSWORD@//host" and
//   "user/PASSWORD@(DESCRIPTION=...)" — not an address ("someone@example.com") or a
//   package alias ("npm:lodash@4.17.21"); and of a .pgpass line
//   ("host:5432:db:user:PASSWORD", '\:' unescaped too);
// - the value of each member or pair whose name is a secret's (SecretName, and ODBC's
//   "PWD" unless its value is a path): in a JSON object at any depth (its strings, when an
//   array: "apiKeys": [...]), as {"name": NAME, "value": VALUE}, or in text: NAME=VALUE,
//   NAME:VALUE, or NAME followed by its value ("password X" as .netrc writes it,
//   "--password X", "X-Api-Key: X"), in items separated by ',', ';', '&' or line breaks;
//   whole when quoted or braced (NAME="a;b c", NAME={a;b}) or when it is the rest of a
//   "NAME: VALUE" or "NAME = VALUE" line (YAML, INI); percent-decoded too (JM3);
// - the word after an authorization scheme ("Bearer X", "Basic X", "Token X");
// - what such a value holds in base64 (Basic's and docker's "user:PASSWORD" by its
//   password, .npmrc's _password, a Kubernetes Secret's data, a PEM key: JM2).
// JSON strings are read as decoded (a URL whose slashes PHP escaped). The work and the
// findings are bounded per value — 64 secrets of at most 8 KiB, 2 KiB looked at per URL,
// 4,096 quoted values, JSON 32 levels deep — so a hostile or huge value costs linear time
// (probe JH1: one of 16 KiB took gigabytes at every start).
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
