// The passwords connection strings carry (tools/carried_secrets.h): a URL's user info, a
// connection string written without a scheme, a .pgpass line. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace las::tools {

// The URL that starts at `value[start]` (just after its "://"): to its end — whitespace,
// a quote, '<', '>' — or the next URL's scheme, within 2 KiB (so "a://a://..." costs
// linear time: probe JH2); and at ',' or ';' (lists, "jdbc:sqlserver://h;user=u;password=p",
// "https://h:8443,ops@example.com") unless they are in a password ("postgres://app:Ps4,Kw8;vN@db",
// as RFC 3986 allows: probes JM1, JP7).
std::string_view UrlAt(std::string_view value, size_t start);

struct UserInfoSecrets {
  std::vector<std::string> passwords;  // as written, and percent-decoded when it differs
  std::string user;  // a user given without a password, when a piece of it looks like a token
};
// The secrets of `url` (UrlAt's): "user:PASSWORD@host" — also a password holding '/', '?'
// or '#' unencoded, which drivers accept (probe JF1); not a port ("host:8080/path/@scope"),
// not an '@' that starts a path segment ("/npm/@scope"), not inside an IPv6 host — and
// "TOKEN@host" ("https://ghp_...@github.com"; not "ssh://deploy-user-2024@git": JM5).
UserInfoSecrets UrlUserInfoSecrets(std::string_view url);

// The password of a connection string without a scheme (Go's MySQL DSN
// "user:PASSWORD@tcp(host:3306)/db", "user:PASSWORD@host:5432/db", Oracle's
// "user/PASSWORD@//host:1521/service", "jdbc:oracle:thin:user/PASSWORD@//host",
// "user/PASSWORD@(DESCRIPTION=...)"), as written and decoded; empty when `word` is none —
// an address, "npm:lodash@4.17.21", "jdbc:oracle:thin:@//host" (probe JP1).
std::vector<std::string> SchemelessDsnPasswords(std::string_view word);

// The password of a .pgpass line "host:port:database:user:PASSWORD" (its port digits or
// '*', a ':' or '\' in a field escaped with '\': probe JM4), as written and unescaped;
// empty when `line` is none (an IPv6 address: probe JP7).
std::vector<std::string> PgpassPasswords(std::string_view line);

}  // namespace las::tools
