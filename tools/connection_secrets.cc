#include "tools/connection_secrets.h"

#include <algorithm>

#include "tools/secret_text.h"

namespace las::tools {
namespace {

constexpr size_t kMostUrlBytes = 2 * 1024;

// `password` as written, and decoded when it is written otherwise.
std::vector<std::string> AsWrittenAndDecoded(std::string_view password) {
  std::vector<std::string> spellings{std::string(password)};
  if (password.find('%') != std::string_view::npos) spellings.push_back(PercentDecoded(password));
  return spellings;
}

// What follows the '@' of a connection string written without a scheme: Go's
// "tcp(host:3306)/db", "unix(/run/mysqld.sock)/db" or "/db", or a host with a port or a
// path ("db.internal:5432/app") — not a version ("npm:lodash@4.17.21"), a name
// ("someone@example.com") or "//host" (JDBC's "thin:@//host").
bool SchemelessHostFollows(std::string_view after_at) {
  if (after_at.starts_with("tcp(") || after_at.starts_with("unix(")) return true;
  if (after_at.starts_with('/')) return !after_at.starts_with("//");
  const size_t host_end = std::min(after_at.find_first_of(":/"), after_at.size());
  if (host_end == 0 || host_end == after_at.size() ||
      !std::all_of(after_at.begin(), after_at.begin() + host_end, IsNameChar)) {
    return false;
  }
  if (after_at[host_end] == '/') return host_end + 1 < after_at.size();
  const std::string_view port = after_at.substr(host_end + 1);
  return IsDigits(port.substr(0, std::min(port.find('/'), port.size())));
}

}  // namespace

std::string_view UrlAt(std::string_view value, size_t start) {
  std::string_view url = value.substr(start, kMostUrlBytes);
  url = url.substr(0, std::min(url.find("://"), url.size()));
  url = url.substr(0, std::min(url.find_first_of(" \t\r\n\"'<>"), url.size()));
  const std::string_view user_info = url.substr(0, std::min(url.find_first_of("/?#"), url.size()));
  const size_t at = user_info.rfind('@');
  const size_t colon = user_info.find(':');
  bool list_in_password = at != std::string_view::npos && colon < at &&
                          user_info.substr(0, at).find('=') == std::string_view::npos;
  if (list_in_password) {
    // "host:8443,ops@example.com" is a port and a list's next item.
    const std::string_view after_colon = user_info.substr(colon + 1, at - colon - 1);
    list_in_password = !IsDigits(after_colon.substr(0, std::min(after_colon.find_first_of(",;"), after_colon.size())));
  }
  if (!list_in_password) url = url.substr(0, std::min(url.find_first_of(",;"), url.size()));
  return url;
}

UserInfoSecrets UrlUserInfoSecrets(std::string_view url) {
  UserInfoSecrets found;
  const size_t authority_end = std::min(url.find_first_of("/?#"), url.size());
  const size_t colon = url.find(':');
  size_t at = url.substr(0, authority_end).rfind('@');
  if (at == std::string_view::npos && colon != std::string_view::npos && colon < authority_end && url.front() != '[') {
    // A password holding '/', '?' or '#' unencoded: up to the URL's last '@' — unless what
    // follows the ':' is a port ("host:8080/docs/@scope"), or the '@' starts a path
    // segment ("/npm/@scope": probe JH4).
    const bool is_port = IsDigits(url.substr(colon + 1, authority_end - colon - 1));
    const size_t last_at = url.rfind('@');
    if (!is_port && last_at != std::string_view::npos && last_at > 0 && url[last_at - 1] != '/') at = last_at;
  }
  if (at == std::string_view::npos) return found;
  if (colon == std::string_view::npos || colon > at) {
    std::string user = PercentDecoded(url.substr(0, at));
    if (HasRandomRun(user)) found.user = std::move(user);
    return found;
  }
  // "app:${POSTGRES_PASSWORD}@db" names the password, kept elsewhere (probe JS10).
  const std::string_view password = url.substr(colon + 1, at - colon - 1);
  if (!IsSecretReference(password)) found.passwords = AsWrittenAndDecoded(password);
  return found;
}

std::vector<std::string> SchemelessDsnPasswords(std::string_view word) {
  word = TrimmedOfBlanksAndQuotes(word);
  const size_t at = word.rfind('@');
  if (at == std::string_view::npos || at == 0 || word[at - 1] == ':' ||
      word.find("://") != std::string_view::npos) {
    return {};
  }
  std::string_view user_info = word.substr(0, at);
  const std::string_view after_at = word.substr(at + 1);
  const bool oracle = (after_at.starts_with("//") || after_at.starts_with('(')) &&
                      user_info.find('/') != std::string_view::npos;
  if (oracle) {
    // After a driver's prefix: "jdbc:oracle:thin:user/PASSWORD@//host" (probe JM4).
    const size_t prefix_end = user_info.substr(0, user_info.find('/')).rfind(':');
    if (prefix_end != std::string_view::npos) user_info.remove_prefix(prefix_end + 1);
  }
  const size_t separator = user_info.find_first_of(oracle ? "/" : ":/");
  if (separator == std::string_view::npos || separator == 0 || separator + 1 == user_info.size() ||
      !std::all_of(user_info.begin(), user_info.begin() + separator, IsNameChar) ||
      (!oracle && (user_info[separator] != ':' || !SchemelessHostFollows(after_at)))) {
    return {};
  }
  const std::string_view password = user_info.substr(separator + 1);
  if (IsSecretReference(password)) return {};
  return AsWrittenAndDecoded(password);
}

std::vector<std::string> PgpassPasswords(std::string_view line) {
  std::vector<size_t> colons;
  for (size_t i = 0; i < line.size() && colons.size() <= 4; ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == ':') {
      colons.push_back(i);
    }
  }
  if (colons.size() != 4) return {};
  const auto field = [&](size_t n) {
    const size_t start = n == 0 ? 0 : colons[n - 1] + 1;
    return line.substr(start, (n < 4 ? colons[n] : line.size()) - start);
  };
  const std::string_view port = field(1);
  if ((port != "*" && !IsDigits(port)) || field(0).empty() || field(2).empty() || field(3).empty()) return {};
  const std::string_view password = field(4);
  std::vector<std::string> spellings{std::string(password)};
  if (password.find('\\') != std::string_view::npos) spellings.push_back(BackslashUnescaped(password));
  return spellings;
}

}  // namespace las::tools
