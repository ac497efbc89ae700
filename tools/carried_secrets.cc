#include "tools/carried_secrets.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>
#include <sodium.h>

#include "base/ascii_case.h"

namespace las::tools {
namespace {

// Work and findings per value are bounded: a variable of 128 KiB of "a://b:c/" made
// thousands of overlapping "passwords" of up to its whole length, whose spellings took
// gigabytes at every start (probe JH1).
constexpr size_t kMostSecretsPerValue = 64;
constexpr size_t kMostSecretBytes = 8 * 1024;  // a PEM private key's base64 fits
constexpr size_t kMostUrlBytes = 2 * 1024;     // looked at after each "://"
constexpr int kMostJsonDepth = 32;             // configuration nests a few levels

std::string_view Trimmed(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r\n\"'";
  const size_t first = text.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlank) - first + 1);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 &&
        HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '$';
}

bool IsDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What follows the '@' of a connection string written without a scheme: Go's
// "tcp(host:3306)/db", "unix(/run/mysqld.sock)/db" or "/db", or a host with a port or a
// path ("db.internal:5432/app") — not a version ("npm:lodash@4.17.21") or a name
// ("someone@example.com").
bool SchemelessHostFollows(std::string_view after_at) {
  if (after_at.starts_with("tcp(") || after_at.starts_with("unix(") || after_at.starts_with('/')) return true;
  const size_t host_end = std::min(after_at.find_first_of(":/"), after_at.size());
  if (host_end == 0 || host_end == after_at.size() ||
      !std::all_of(after_at.begin(), after_at.begin() + host_end, IsNameChar)) {
    return false;
  }
  if (after_at[host_end] == '/') return host_end + 1 < after_at.size();
  const std::string_view port = after_at.substr(host_end + 1);
  return IsDigits(port.substr(0, std::min(port.find('/'), port.size())));
}

// "user:password" as the standard base64 of an "Authorization: Basic" header or of
// docker's config.json "auth" member writes it, decoded; empty when `text` is not that.
std::string BasicCredentialsIn(std::string_view text) {
  std::string decoded(text.size(), '\0');
  size_t length = 0;
  for (const int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING}) {
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(decoded.data()), decoded.size(), text.data(),
                          text.size(), nullptr, &length, nullptr, variant) == 0) {
      decoded.resize(length);
      const bool printable = std::all_of(decoded.begin(), decoded.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
      const size_t colon = decoded.find(':');
      return printable && colon != std::string::npos && colon > 0 ? decoded : std::string();
    }
  }
  return {};
}

// The words of a name: split at '-', '_', '.', ' ', and where a lower-case letter or digit
// is followed by an upper-case one ("privateKey", "AccountKey"); lower-cased.
std::vector<std::string> NameWords(std::string_view name) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '-' || c == '_' || c == '.' || c == ' ') {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= '0' && name[i - 1] <= '9')) &&
        !words.back().empty()) {
      words.emplace_back();
    }
    words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

class Finder {
 public:
  CarriedSecrets Take() { return std::move(found_); }

  // A value that counts when it looks like a token (the caller judges).
  void AddValue(std::string_view secret) { AddOnce(secret, found_.values); }
  void AddPassword(std::string_view password) { AddOnce(password, found_.url_passwords); }

  void AddUrlSecrets(std::string_view value) {
    for (size_t scheme = value.find("://"); scheme != std::string_view::npos && !Full();
         scheme = value.find("://", scheme + 3)) {
      const size_t start = scheme + 3;
      // To the URL's end — whitespace, a quote, ',', ';', '<', '>' — or the next URL's
      // scheme, within kMostUrlBytes (so "a://a://..." costs linear time: probe JH2).
      std::string_view url = value.substr(start, kMostUrlBytes);
      url = url.substr(0, std::min(url.find("://"), url.size()));
      url = url.substr(0, std::min(url.find_first_of(" \t\r\n\"',;<>"), url.size()));
      AddUrlUserInfo(url);
    }
  }

  void AddFromJson(const nlohmann::json& node, int depth = 0) {
    if (depth > kMostJsonDepth || Full()) return;
    if (node.is_string()) {
      const std::string& text = node.get_ref<const std::string&>();
      AddUrlSecrets(text);  // also a URL whose slashes the JSON escaped ("mysql:\/\/...")
      AddFromPairs(text);   // ["POSTGRES_PASSWORD=..."] as compose and docker write them (JJ4)
    } else if (node.is_object()) {
      // {"name": "X-Api-Key", "value": "..."}: a header as HAR and Kubernetes write one.
      for (const char* name_member : {"name", "key"}) {
        const auto name = node.find(name_member);
        const auto value = node.find("value");
        if (name != node.end() && value != node.end() && name->is_string() && value->is_string() &&
            SecretName(name->get_ref<const std::string&>())) {
          AddValue(value->get_ref<const std::string&>());
        }
      }
      for (const auto& [key, member] : node.items()) {
        if (SecretName(key)) AddSecretMember(member);
        AddFromJson(member, depth + 1);
      }
    } else if (node.is_array()) {
      for (const auto& element : node) AddFromJson(element, depth + 1);
    }
  }

  // Items separated by ',', ';', '&' or line breaks; in each, whitespace-separated words:
  // NAME=VALUE or NAME:VALUE, or a secret's name followed by its value ("password X" as
  // .netrc writes it, "--password X", "X-Api-Key: X"), or a scheme and its credential.
  void AddFromPairs(std::string_view value) {
    std::vector<std::string_view> words;
    size_t start = 0;
    while (start <= value.size() && !Full()) {
      const size_t end = std::min(value.find_first_of(" \t\r\n,;&", start), value.size());
      if (end > start) words.push_back(value.substr(start, end - start));
      const bool item_ends = end == value.size() || (value[end] != ' ' && value[end] != '\t');
      if (item_ends) {
        AddFromWords(words);
        words.clear();
      }
      start = end + 1;
    }
  }

 private:
  bool Full() const {
    return found_.values.size() + found_.url_passwords.size() >= kMostSecretsPerValue;
  }

  void AddOnce(std::string_view secret, std::vector<std::string>& list) {
    secret = Trimmed(secret);
    if (secret.empty() || secret.size() > kMostSecretBytes || Full() ||
        std::find(list.begin(), list.end(), secret) != list.end()) {
      return;
    }
    list.emplace_back(secret);
  }

  void AddSecretMember(const nlohmann::json& member) {
    if (member.is_string()) {
      AddValue(member.get_ref<const std::string&>());
      AddBasicPassword(member.get_ref<const std::string&>());  // docker's "auth"
    } else if (member.is_array()) {  // "apiKeys": ["...", "..."]
      for (const auto& element : member) {
        if (element.is_string()) AddValue(element.get_ref<const std::string&>());
      }
    }
  }

  // `url` is what follows "scheme://" up to the URL's end.
  void AddUrlUserInfo(std::string_view url) {
    const size_t authority_end = std::min(url.find_first_of("/?#"), url.size());
    const size_t at_in_authority = url.substr(0, authority_end).rfind('@');
    const size_t colon = url.find(':');
    size_t at = at_in_authority;
    if (at == std::string_view::npos && colon != std::string_view::npos &&
        colon < authority_end && url.front() != '[') {
      // A password holding '/', '?' or '#' unencoded (drivers take it): up to the URL's
      // last '@' — unless what follows the ':' is a port ("host:8080/docs/@scope"), or the
      // '@' starts a path segment ("/npm/@scope": probe JH4).
      const std::string_view port = url.substr(colon + 1, authority_end - colon - 1);
      const bool is_port = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
        return c >= '0' && c <= '9';
      });
      const size_t last_at = url.rfind('@');
      if (!is_port && last_at != std::string_view::npos && last_at > 0 && url[last_at - 1] != '/') {
        at = last_at;
      }
    }
    if (at == std::string_view::npos) return;
    if (colon == std::string_view::npos || colon > at) {
      // No password: the user alone may be a token ("https://ghp_...@github.com").
      AddValue(PercentDecoded(url.substr(0, at)));
      return;
    }
    const std::string_view password = url.substr(colon + 1, at - colon - 1);
    AddPassword(password);
    if (password.find('%') != std::string_view::npos) AddPassword(PercentDecoded(password));
  }

  // The password of "user:PASSWORD@tcp(host:3306)/db" (Go's MySQL driver),
  // "user:PASSWORD@host:5432/db", "user/PASSWORD@//host:1521/service" or
  // "user/PASSWORD@(DESCRIPTION=...)" (Oracle): connection strings without a scheme.
  // Whether `word` was one.
  bool AddSchemelessPassword(std::string_view word) {
    word = Trimmed(word);
    const size_t at = word.rfind('@');
    if (at == std::string_view::npos || word.find("://") != std::string_view::npos) return false;
    const std::string_view user_info = word.substr(0, at);
    const size_t separator = user_info.find_first_of(":/");
    if (separator == std::string_view::npos || separator == 0 || separator + 1 == user_info.size() ||
        !std::all_of(user_info.begin(), user_info.begin() + separator, IsNameChar)) {
      return false;
    }
    const std::string_view after_at = word.substr(at + 1);
    const bool oracle = user_info[separator] == '/';
    if (oracle ? !(after_at.starts_with("//") || after_at.starts_with('(')) : !SchemelessHostFollows(after_at)) {
      return false;
    }
    const std::string_view password = user_info.substr(separator + 1);
    AddPassword(password);
    if (password.find('%') != std::string_view::npos) AddPassword(PercentDecoded(password));
    return true;
  }

  // A line of .pgpass: "host:port:database:user:PASSWORD", its port digits or '*'.
  bool AddPgpassPassword(std::string_view word) {
    if (std::count(word.begin(), word.end(), ':') != 4) return false;
    const size_t port_start = word.find(':') + 1;
    const std::string_view port = word.substr(port_start, word.find(':', port_start) - port_start);
    if (port != "*" && !IsDigits(port)) return false;
    AddPassword(word.substr(word.rfind(':') + 1));
    return true;
  }

  void AddBasicPassword(std::string_view encoded) {
    const std::string credentials = BasicCredentialsIn(Trimmed(encoded));
    if (!credentials.empty()) AddPassword(credentials.substr(credentials.find(':') + 1));
  }

  void AddFromWords(const std::vector<std::string_view>& words) {
    if (words.size() == 1 && AddPgpassPassword(words[0])) return;
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string_view word = words[i];
      if (AddSchemelessPassword(word)) continue;
      // '=' first: ".npmrc"'s "//registry.example/:_authToken=X" names its secret after a ':'.
      const size_t equals = word.find('=');
      const size_t split = equals != std::string_view::npos ? equals : word.find(':');
      if (split != std::string_view::npos && split + 1 < word.size() &&
          word.substr(split, 3) != "://") {
        const std::string_view name = word.substr(0, split);
        AddSchemelessPassword(word.substr(split + 1));  // DSN=user:PASSWORD@tcp(db:3306)/app
        if (SecretName(name)) AddValue(word.substr(split + 1));
        continue;
      }
      if (i + 1 == words.size()) break;
      std::string_view name = word;
      while (name.starts_with('-')) name.remove_prefix(1);
      if (name.ends_with(':') || name.ends_with('=')) name.remove_suffix(1);
      const std::string lower = AsciiLower(name);
      if (SecretName(name) || lower == "bearer" || lower == "basic" || lower == "token") {
        // "password = X" (TOML, INI, properties, HCL: probe JJ1) as "password X".
        const bool separated = (words[i + 1] == "=" || words[i + 1] == ":") && i + 2 < words.size();
        AddValue(words[i + (separated ? 2 : 1)]);
        if (lower == "basic") AddBasicPassword(words[i + 1]);
      }
    }
  }

  CarriedSecrets found_;
};

}  // namespace

bool SecretName(std::string_view name) {
  std::vector<std::string> words = NameWords(name);
  // "PWD" alone is the working directory; "MYSQL_PWD" a password.
  if (words.size() == 1 && words[0] == "pwd") return false;
  // A last word that says how the secret is written: the one before names it
  // ("private_key_pem", "signingKeyB64", "clientSecretValue", "client-key-data").
  while (words.size() > 1) {
    const std::string& last = words.back();
    if (last != "pem" && last != "b64" && last != "base64" && last != "value" && last != "data" &&
        last != "hex" && last != "der" && last != "raw") {
      break;
    }
    words.pop_back();
  }
  if (words.empty()) return false;
  const std::string& last = words.back();
  const std::string before = words.size() > 1 ? words[words.size() - 2] : "";
  // Keys that name a place or are public by design: a table's partition or sort key, a
  // public, publishable or anonymous key, a KMS key's id.
  if (last == "key" || last == "keys") {
    for (const std::string_view place :
         {"partition", "sort", "primary", "foreign", "public", "publishable", "anon", "kms",
          "cache", "routing", "hash", "range", "shard", "row", "object", "idempotency", "lookup",
          "unique", "s3"}) {
      if (before == place) return false;
    }
    return true;
  }
  if (last == "id" && before == "session") return true;  // ASP.NET_SessionId
  for (const std::string_view exact : {"pwd", "pw", "pass", "auth", "authorization", "cookie",
                                       "cookies", "credential", "credentials", "session", "sid",
                                       "dsn", "sig", "signature"}) {
    if (last == exact) return true;
  }
  for (const std::string_view ending :
       {"password", "passwords", "passwd", "passphrase", "secret", "secrets", "token", "tokens",
        "apikey", "apikeys", "sessionid", "sessid", "bindpw"}) {
    if (last.ends_with(ending)) return true;  // csrftoken, PGPASSWORD, JSESSIONID
  }
  return false;
}

CarriedSecrets SecretsCarriedIn(std::string_view value) {
  Finder finder;
  finder.AddUrlSecrets(value);
  const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() || parsed.is_array()) {
    finder.AddFromJson(parsed);
  } else {
    finder.AddFromPairs(value);
  }
  return finder.Take();
}

}  // namespace las::tools
