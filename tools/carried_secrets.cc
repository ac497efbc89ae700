#include "tools/carried_secrets.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>
#include <sodium.h>

#include "base/ascii_case.h"
#include "tools/credentials.h"

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

// Text a secret holds in standard base64, decoded: "user:password" of an "Authorization:
// Basic" header, docker's config.json "auth" and .npmrc's "_auth"; .npmrc's "_password";
// a Kubernetes Secret's data; kubeconfig's client-key-data PEM (probe JM2). Empty when
// `text` is not base64 of printable text (a random token is not, but for a chance far
// below one in a million at the 12 characters looked at).
constexpr size_t kShortestDecodedText = 8;
std::string Base64DecodedText(std::string_view text) {
  if (text.size() < 12) return {};
  std::string decoded(text.size(), '\0');
  size_t length = 0;
  for (const int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING}) {
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(decoded.data()), decoded.size(), text.data(),
                          text.size(), nullptr, &length, nullptr, variant) == 0) {
      decoded.resize(length);
      const bool printable = std::all_of(decoded.begin(), decoded.end(), [](char c) {
        return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
      });
      return printable && decoded.size() >= kShortestDecodedText ? decoded : std::string();
    }
  }
  return {};
}

// Whether a piece of `name` between '-', '_' and '.' looks like a token: a URL's user is
// one ("ghp_R8x2..."), or a name of words ("svc-reporting-2024") that is public.
bool HasTokenPiece(std::string_view name) {
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find_first_of("-_.", start), name.size());
    if (LooksLikeAToken(name.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

// Whether a pair's value is a secret by its name: SecretName's, or ODBC's "PWD" — unless
// its value is a path: the environment's working directory.
bool SecretPair(std::string_view name, std::string_view value) {
  if (SecretName(name)) return true;
  value = Trimmed(value);
  const bool path = value.starts_with('/') || value.starts_with('~') || (value.size() > 2 && value[1] == ':');
  return AsciiLower(name) == "pwd" && !value.empty() && !path;
}

// .pgpass's "\:" and "\\" undone.
std::string PgpassUnescaped(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 1 < field.size()) ++i;
    out += field[i];
  }
  return out;
}

class Finder {
 public:
  CarriedSecrets Take() {
    found_.only_public_pairs = public_pairs_ > 0 && !other_words_;
    return std::move(found_);
  }

  // A value that counts when it looks like a token (the caller judges); what it holds in
  // base64 too: "user:PASSWORD" by its password, other text whole.
  void AddValue(std::string_view secret) {
    AddOnce(secret, found_.values);
    const std::string decoded = Base64DecodedText(Trimmed(secret));
    const size_t colon = decoded.find(':');
    const bool user_and_password = colon != std::string::npos && colon > 0 &&
                                   decoded.find_first_of(" \t\r\n") == std::string::npos &&
                                   std::all_of(decoded.begin(), decoded.begin() + colon, IsNameChar);
    if (user_and_password) {
      AddPassword(decoded.substr(colon + 1));
    } else if (!decoded.empty()) {
      AddOnce(decoded, found_.values);
    }
  }
  void AddPassword(std::string_view password) { AddOnce(password, found_.url_passwords); }

  void AddUrlSecrets(std::string_view value) {
    for (size_t scheme = value.find("://"); scheme != std::string_view::npos && !Full();
         scheme = value.find("://", scheme + 3)) {
      const size_t start = scheme + 3;
      // To the URL's end — whitespace, a quote, '<', '>' — or the next URL's scheme,
      // within kMostUrlBytes (so "a://a://..." costs linear time: probe JH2); and at ',' or
      // ';' (lists, "jdbc:sqlserver://h;user=u;password=p") unless they are in a password
      // ("postgres://app:Ps4,Kw8;vN@db", as RFC 3986 allows: probe JM1).
      std::string_view url = value.substr(start, kMostUrlBytes);
      url = url.substr(0, std::min(url.find("://"), url.size()));
      url = url.substr(0, std::min(url.find_first_of(" \t\r\n\"'<>"), url.size()));
      const std::string_view user_info = url.substr(0, std::min(url.find_first_of("/?#"), url.size()));
      const size_t at = user_info.rfind('@');
      const bool list_in_password = at != std::string_view::npos &&
                                    user_info.substr(0, at).find(':') != std::string_view::npos &&
                                    user_info.substr(0, at).find('=') == std::string_view::npos;
      if (!list_in_password) url = url.substr(0, std::min(url.find_first_of(",;"), url.size()));
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
  // Before that, what separators cannot cut: a quoted value and the rest of a line.
  void AddFromPairs(std::string_view value) {
    AddQuotedValues(value);
    AddLineRests(value);
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
  // NAME="VALUE", NAME='VALUE' or NAME={VALUE} (ADO.NET, JAAS, env files, ODBC) whose
  // name is a secret's, the value holding ',', ';' or spaces (probe JM1).
  void AddQuotedValues(std::string_view text) {
    constexpr size_t kMostQuotedValues = 4096;  // each costs a search of kMostSecretBytes
    size_t tried = 0;
    for (size_t i = text.find_first_of("=:"); i != std::string_view::npos && tried < kMostQuotedValues && !Full();
         i = text.find_first_of("=:", i + 1)) {
      const size_t open = text.find_first_not_of(" \t", i + 1);
      if (open == std::string_view::npos) return;
      const char opener = text[open];
      if (opener != '"' && opener != '\'' && opener != '{') continue;
      size_t name_end = i;
      while (name_end > 0 && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t')) --name_end;
      size_t name_start = name_end;
      while (name_start > 0 && IsNameChar(text[name_start - 1])) --name_start;
      const std::string_view name = text.substr(name_start, name_end - name_start);
      if (name.empty() || (!SecretName(name) && AsciiLower(name) != "pwd")) continue;
      ++tried;
      const std::string_view rest = text.substr(open + 1, kMostSecretBytes);
      const size_t close = rest.find(opener == '{' ? '}' : opener);
      if (close == std::string_view::npos) continue;
      if (SecretPair(name, rest.substr(0, close))) AddValue(rest.substr(0, close));
      i = open + 1 + close;
    }
  }

  // "NAME: REST" (YAML, headers) and "NAME = REST" (INI, TOML) lines, also after
  // "export " or dashes: REST whole, to the line's end (probe JM1: "password: Yc4,Rw8...").
  void AddLineRests(std::string_view text) {
    for (size_t start = 0; start < text.size() && !Full();) {
      const size_t end = std::min(text.find('\n', start), text.size());
      std::string_view line = text.substr(start, end - start);
      start = end + 1;
      line.remove_prefix(std::min(line.find_first_not_of(" \t-"), line.size()));
      if (line.starts_with("export ")) line.remove_prefix(7);
      size_t name_end = 0;
      while (name_end < line.size() && IsNameChar(line[name_end])) ++name_end;
      const size_t separator = line.find_first_not_of(" \t", name_end);
      if (name_end == 0 || separator == std::string_view::npos ||
          (line[separator] != ':' && line[separator] != '=') ||
          !SecretName(line.substr(0, name_end))) {
        continue;
      }
      // Only where the separator stands apart: "NAME=a,b" is a list's first item.
      const bool apart = separator > name_end || (separator + 1 < line.size() && (line[separator + 1] == ' ' || line[separator + 1] == '\t'));
      if (apart) AddValue(line.substr(separator + 1));
    }
  }

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
      // No password: the user alone may be a token ("https://ghp_...@github.com") — not a
      // name of words ("svc-reporting-2024", "deploy-user-2024": probe JM5).
      const std::string user = PercentDecoded(url.substr(0, at));
      if (HasTokenPiece(user)) AddValue(user);
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
      return false;
    }
    const std::string_view password = user_info.substr(separator + 1);
    AddPassword(password);
    if (password.find('%') != std::string_view::npos) AddPassword(PercentDecoded(password));
    return true;
  }

  // A line of .pgpass: "host:port:database:user:PASSWORD", its port digits or '*', a ':'
  // or '\' in a field escaped with '\' (probe JM4).
  bool AddPgpassPassword(std::string_view line) {
    std::vector<size_t> colons;
    for (size_t i = 0; i < line.size() && colons.size() <= 4; ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line[i] == ':') {
        colons.push_back(i);
      }
    }
    if (colons.size() != 4) return false;
    const std::string_view port = line.substr(colons[0] + 1, colons[1] - colons[0] - 1);
    if (port != "*" && !IsDigits(port)) return false;
    const std::string_view password = line.substr(colons[3] + 1);
    AddPassword(password);
    if (password.find('\\') != std::string_view::npos) AddPassword(PgpassUnescaped(password));
    return true;
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
        const std::string_view value = word.substr(split + 1);
        AddSchemelessPassword(value);  // DSN=user:PASSWORD@tcp(db:3306)/app
        if (SecretPair(name, value)) {
          AddValue(value);
          // A query's "sig=k7Qz%2Bx..." or "password=Qw8%21..." as its reader decodes it (JM3).
          if (value.find('%') != std::string_view::npos) AddValue(PercentDecoded(value));
        } else if (!name.empty() && std::all_of(name.begin(), name.end(), IsNameChar)) {
          ++public_pairs_;
        } else {
          other_words_ = true;
        }
        continue;
      }
      other_words_ = true;
      if (i + 1 == words.size()) break;
      std::string_view name = word;
      while (name.starts_with('-')) name.remove_prefix(1);
      if (name.ends_with(':') || name.ends_with('=')) name.remove_suffix(1);
      const std::string lower = AsciiLower(name);
      if (SecretName(name) || lower == "bearer" || lower == "basic" || lower == "token") {
        // "password = X" (TOML, INI, properties, HCL: probe JJ1) as "password X".
        const bool separated = (words[i + 1] == "=" || words[i + 1] == ":") && i + 2 < words.size();
        AddValue(words[i + (separated ? 2 : 1)]);
      }
    }
  }

  CarriedSecrets found_;
  size_t public_pairs_ = 0;  // NAME=VALUE words whose name is no secret's
  bool other_words_ = false;
};

}  // namespace

CarriedSecrets SecretsCarriedIn(std::string_view value) {
  Finder finder;
  finder.AddUrlSecrets(value);
  const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  const bool json = parsed.is_object() || parsed.is_array();
  if (json) {
    finder.AddFromJson(parsed);
  } else {
    finder.AddFromPairs(value);
  }
  CarriedSecrets carried = finder.Take();
  carried.only_public_pairs = carried.only_public_pairs && !json;
  return carried;
}

}  // namespace las::tools
