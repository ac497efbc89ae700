#include "tools/carried_secrets.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/ascii_case.h"
#include "tools/connection_secrets.h"
#include "tools/secret_text.h"

namespace las::tools {
namespace {

// Work and findings per value are bounded: a variable of 128 KiB of "a://b:c/" made
// thousands of overlapping "passwords" of up to its whole length, whose spellings took
// gigabytes at every start (probe JH1).
constexpr size_t kMostSecretsPerValue = 64;
constexpr size_t kMostSecretBytes = 8 * 1024;  // a PEM private key's base64 fits
constexpr int kMostJsonDepth = 32;             // configuration nests a few levels
constexpr size_t kMostQuotedValues = 4096;     // each costs a search of kMostSecretBytes
constexpr size_t kMostIndentedValues = 256;    // each costs a scan of kMostSecretBytes

// The length of the name `text` starts with (IsNameChar's characters).
size_t NameLength(std::string_view text) {
  size_t length = 0;
  while (length < text.size() && IsNameChar(text[length])) ++length;
  return length;
}

// Whether a pair of that name may hold a secret (AddNamed judges its value).
bool MayHoldASecret(std::string_view name) { return SecretName(name) || AsciiLower(name) == "pwd"; }

size_t IndentOf(std::string_view line) { return std::min(line.find_first_not_of(" \t"), line.size()); }

// A YAML block scalar's indicator ("|", ">-", "|2+"), which puts the value on the lines below.
bool IsBlockIndicator(std::string_view rest) {
  if (rest.empty() || (rest[0] != '|' && rest[0] != '>')) return false;
  return std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c == '-' || c == '+' || (c >= '0' && c <= '9'); });
}

// A single-quoted value from just after its opening quote: up to the closing quote, with
// YAML's '' and the shell's '\'' read as one quote (probe JP9). `end` is set past it.
std::string SingleQuotedValue(std::string_view text, size_t& end) {
  std::string value;
  size_t at = 0;
  while (true) {
    const size_t close = text.find('\'', at);
    if (close == std::string_view::npos || close - at > kMostSecretBytes) {
      end = std::string_view::npos;
      return {};
    }
    value += text.substr(at, close - at);
    if (text.substr(close, 2) == "''") {
      value += '\'';
      at = close + 2;
    } else if (text.substr(close, 4) == "'\\''") {
      value += '\'';
      at = close + 4;
    } else {
      end = close + 1;
      return value;
    }
  }
}

// The closing quote of a double-quoted value from just after its opening quote, past
// backslash escapes; npos if none within kMostSecretBytes.
size_t DoubleQuoteClose(std::string_view text) {
  for (size_t i = 0; i < std::min(text.size(), kMostSecretBytes); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

class Finder {
 public:
  CarriedSecrets Take() {
    found_.only_public_pairs = public_pairs_ > 0 && !other_words_;
    return std::move(found_);
  }

  void AddUrlSecrets(std::string_view value) {
    for (size_t scheme = value.find("://"); scheme != std::string_view::npos && !Full();
         scheme = value.find("://", scheme + 3)) {
      const UserInfoSecrets secrets = UrlUserInfoSecrets(UrlAt(value, scheme + 3));
      AddPasswords(secrets.passwords);
      if (!secrets.user.empty()) AddValue(secrets.user);
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
        if (name != node.end() && value != node.end() && name->is_string() && value->is_string()) {
          AddNamed(name->get_ref<const std::string&>(), value->get_ref<const std::string&>());
        }
      }
      for (const auto& [key, member] : node.items()) {
        if (member.is_string()) AddNamed(key, member.get_ref<const std::string&>());
        if (member.is_array() && SecretName(key)) {  // "apiKeys": ["...", "..."]
          for (const auto& element : member) {
            if (element.is_string()) AddNamed(key, element.get_ref<const std::string&>());
          }
        }
        AddFromJson(member, depth + 1);
      }
    } else if (node.is_array()) {
      for (const auto& element : node) AddFromJson(element, depth + 1);
    }
  }

  // Items separated by ',', ';', '&' or line breaks; in each, whitespace-separated words:
  // NAME=VALUE or NAME:VALUE, or a secret's name followed by its value ("password X" as
  // .netrc writes it, "--password X", "X-Api-Key: X"), or a scheme and its credential.
  // Before that, what separators cannot cut: quoted values, the rest of a line, a value on
  // the lines below its name, XML.
  void AddFromPairs(std::string_view value) {
    AddQuotedValues(value);
    AddLineRests(value);
    if (value.find('<') != std::string_view::npos) AddXmlValues(value);
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
  bool Full() const { return found_.values.size() + found_.url_passwords.size() >= kMostSecretsPerValue; }

  void AddOnce(std::string_view secret, std::vector<std::string>& list) {
    secret = TrimmedOfBlanksAndQuotes(secret);
    if (secret.empty() || secret.size() > kMostSecretBytes || Full() ||
        std::find(list.begin(), list.end(), secret) != list.end()) {
      return;
    }
    list.emplace_back(secret);
  }

  void AddPasswords(const std::vector<std::string>& passwords) {
    for (const std::string& password : passwords) AddOnce(password, found_.url_passwords);
  }

  // A value that counts when it looks like a token (the caller judges); what it holds in
  // base64 too: "user:PASSWORD" by its password, other text whole.
  void AddValue(std::string_view secret) {
    AddOnce(secret, found_.values);
    const std::string decoded = Base64DecodedText(TrimmedOfBlanksAndQuotes(secret));
    const size_t colon = decoded.find(':');
    const bool user_and_password = colon != std::string::npos && colon > 0 &&
                                   decoded.find_first_of("\r\n") == std::string::npos &&
                                   std::all_of(decoded.begin(), decoded.begin() + colon, IsNameChar);
    if (user_and_password) {
      AddOnce(decoded.substr(colon + 1), found_.url_passwords);
    } else if (!decoded.empty()) {
      AddOnce(decoded, found_.values);
    }
  }

  // `value` found under `name`: it counts when the name is a secret's (SecretName, or ODBC's
  // "PWD" unless its value is a path: the environment's working directory) — a reference
  // to a secret kept elsewhere by the literal it falls back on (IsSecretReference,
  // ReferenceDefault); under a name that may name something public, or `loose` (a bare
  // name followed by it: "token build-robot-2024"), only when it holds a run that reads as
  // no word (HasRandomRun; probes JP2-JP6, JS1-JS4); never a publishable key, public by
  // design ("pk_live_..."). As written and as its reader decodes it: "sig=k7Qz%2Bx..."
  // (JM3), "db.password=a\=b" (.properties, JP9).
  void AddNamed(std::string_view name, std::string_view value, bool loose = false) {
    SecretNameKind kind = KindOfSecretName(name);
    value = TrimmedOfBlanksAndQuotes(value);
    if (kind == SecretNameKind::kNone) {
      const bool path = value.starts_with('/') || value.starts_with('~') || (value.size() > 2 && value[1] == ':');
      if (AsciiLower(name) != "pwd" || path) return;
      kind = SecretNameKind::kSecret;
    }
    if (IsSecretReference(value)) value = TrimmedOfBlanksAndQuotes(ReferenceDefault(value));
    if (value.empty() || IsSecretReference(value) || value.starts_with("pk_live_") || value.starts_with("pk_test_")) {
      return;
    }
    // Under a name that may name something public, a URL names where a thing is (its own
    // secrets are its user info's: AddUrlSecrets; probes JU6, JU13).
    const bool url = value.find("://") != std::string_view::npos;
    if (LooksLikeAPath(value) ||
        ((kind == SecretNameKind::kMayName || loose) && (!HasRandomRun(value) || url))) {
      return;
    }
    AddValue(value);
    if (value.find('%') != std::string_view::npos) AddValue(PercentDecoded(value));
    if (value.find('\\') != std::string_view::npos) AddValue(BackslashUnescaped(value));
  }

  // NAME="VALUE", NAME='VALUE', NAME="""VALUE""" (TOML) or NAME={VALUE} (ODBC): the value
  // whole though it holds ',', ';' or spaces (probe JM1), its escapes undone (JP9).
  void AddQuotedValues(std::string_view text) {
    size_t tried = 0;
    for (size_t i = text.find_first_of("=:"); i != std::string_view::npos && tried < kMostQuotedValues && !Full();
         i = text.find_first_of("=:", i + 1)) {
      const size_t open = text.find_first_not_of(" \t", i + 1);
      if (open == std::string_view::npos) return;
      const char opener = text[open];
      if (opener != '"' && opener != '\'' && !(opener == '{' && text[i] == '=')) continue;
      size_t name_end = i;
      while (name_end > 0 && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t')) --name_end;
      size_t name_start = name_end;
      while (name_start > 0 && IsNameChar(text[name_start - 1])) --name_start;
      const std::string_view name = text.substr(name_start, name_end - name_start);
      if (name.empty() || !MayHoldASecret(name)) continue;
      ++tried;
      const std::string_view rest = text.substr(open + 1);
      if (const std::string_view triple = text.substr(open, 3); triple == R"(""")" || triple == "'''") {
        const size_t close = rest.substr(2, kMostSecretBytes).find(triple);
        if (close == std::string_view::npos) continue;
        AddNamed(name, rest.substr(2, close));
        i = open + 3 + close + 2;
      } else if (opener == '\'') {
        size_t end = 0;
        const std::string value = SingleQuotedValue(rest, end);
        if (end == std::string_view::npos) continue;
        AddNamed(name, value);
        i = open + end;
      } else {
        const size_t close = opener == '{' ? rest.substr(0, kMostSecretBytes).find('}') : DoubleQuoteClose(rest);
        if (close == std::string_view::npos) continue;
        AddNamed(name, rest.substr(0, close));
        if (opener == '"') AddNamed(name, DoubleQuotedUnescaped(rest.substr(0, close)));
        i = open + 1 + close;
      }
    }
  }

  // "NAME: REST" (YAML, headers) and "NAME = REST" (INI, TOML) lines, also after "export "
  // or dashes: REST whole to the line's end, without a "# comment" (probes JM1, JP3); a
  // value on the lines below, more indented (a YAML block scalar "token: |", or a plain
  // value on the next line: JP9). Quoted values are AddQuotedValues'.
  void AddLineRests(std::string_view text) {
    size_t indented_values = 0;
    for (size_t start = 0; start < text.size() && !Full();) {
      const size_t end = std::min(text.find('\n', start), text.size());
      std::string_view line = text.substr(start, end - start);
      start = end + 1;
      const size_t indent = IndentOf(line);
      line.remove_prefix(std::min(line.find_first_not_of(" \t-"), line.size()));
      if (line.starts_with("export ")) line.remove_prefix(7);
      const size_t name_end = NameLength(line);
      const size_t separator = line.find_first_not_of(" \t", name_end);
      if (name_end == 0 || separator == std::string_view::npos || (line[separator] != ':' && line[separator] != '=') ||
          !SecretName(line.substr(0, name_end))) {
        continue;
      }
      const std::string_view name = line.substr(0, name_end);
      std::string_view rest = line.substr(separator + 1);
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
      if (rest.empty() || IsBlockIndicator(rest)) {
        if (++indented_values <= kMostIndentedValues) {
          AddNamed(name, LinesBelow(text.substr(start), indent, /*block=*/!rest.empty()));
        }
        continue;
      }
      if (rest.front() == '"' || rest.front() == '\'') continue;
      const size_t comment = std::min(rest.find(" #"), rest.find("\t#"));
      rest = rest.substr(0, comment);
      // Only where the separator stands apart: "NAME=a,b" is a list's first item.
      const bool apart = separator > name_end || line.substr(separator + 1).starts_with(' ') ||
                         line.substr(separator + 1).starts_with('\t');
      if (apart) AddNamed(name, rest);
    }
  }

  // The lines at the start of `text` more indented than `indent`, each trimmed, joined by
  // '\n', within kMostSecretBytes; none when, outside a `block` scalar, they are a nested
  // mapping or list ("auth:\n  url: ...": probe JS9).
  static std::string LinesBelow(std::string_view text, size_t indent, bool block) {
    std::string value;
    for (size_t start = 0; start < text.size() && value.size() < kMostSecretBytes;) {
      const size_t end = std::min(text.find('\n', start), text.size());
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      if (IndentOf(line) <= indent) break;
      if (value.empty() && !block) {
        const std::string_view first = line.substr(IndentOf(line));
        if (first.starts_with("- ") || first.substr(NameLength(first)).starts_with(':')) return {};
      }
      if (!value.empty()) value += '\n';
      value += TrimmedOfBlanksAndQuotes(line);
    }
    return value;
  }

  // <password>VALUE</password> (Maven's settings.xml) and <add key="ApiKey" value="VALUE"/>
  // (.NET's appSettings) (probe JP9).
  void AddXmlValues(std::string_view text) {
    size_t tried = 0;
    for (size_t open = text.find('<'); open != std::string_view::npos && tried < kMostQuotedValues && !Full();
         open = text.find('<', open + 1)) {
      const size_t name_end = open + 1 + NameLength(text.substr(open + 1));
      if (name_end == open + 1 || name_end == text.size() || text[name_end] != '>') continue;
      const std::string_view name = text.substr(open + 1, name_end - open - 1);
      if (!SecretName(name)) continue;
      ++tried;
      const std::string_view rest = text.substr(name_end + 1, kMostSecretBytes);
      const size_t close = rest.find("</");
      if (close != std::string_view::npos) AddNamed(name, rest.substr(0, close));
    }
    tried = 0;
    for (size_t value = text.find("value=\""); value != std::string_view::npos && tried < kMostQuotedValues && !Full();
         value = text.find("value=\"", value + 1)) {
      const size_t tag = text.rfind('<', value);
      if (tag == std::string_view::npos || value - tag > 1024) continue;
      const std::string_view attributes = text.substr(tag, value - tag);
      for (const std::string_view naming : {"key=\"", "name=\""}) {
        const size_t at = attributes.find(naming);
        if (at == std::string_view::npos) continue;
        const std::string_view name = attributes.substr(at + naming.size());
        ++tried;
        const std::string_view content = text.substr(value + 7, kMostSecretBytes);
        const size_t close = content.find('"');
        if (close != std::string_view::npos) AddNamed(name.substr(0, name.find('"')), content.substr(0, close));
      }
    }
  }

  void AddFromWords(const std::vector<std::string_view>& words) {
    if (words.size() == 1) {
      const std::vector<std::string> pgpass = PgpassPasswords(words[0]);
      AddPasswords(pgpass);
      if (!pgpass.empty()) return;
    }
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string_view word = words[i];
      if (const std::vector<std::string> dsn = SchemelessDsnPasswords(word); !dsn.empty()) {
        AddPasswords(dsn);
        continue;
      }
      // '=' first: ".npmrc"'s "//registry.example/:_authToken=X" names its secret after a ':'.
      const size_t equals = word.find('=');
      const size_t split = equals != std::string_view::npos ? equals : word.find(':');
      if (split != std::string_view::npos && split + 1 < word.size() && word.substr(split, 3) != "://") {
        const std::string_view name = word.substr(0, split);
        const std::string_view value = word.substr(split + 1);
        AddPasswords(SchemelessDsnPasswords(value));  // DSN=user:PASSWORD@tcp(db:3306)/app
        AddNamed(name, value);
        if (MayHoldASecret(name)) continue;
        // A public pair; PDO's "mysql:host=db" too (probe JP5).
        const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return IsNameChar(c) || c == ':'; });
        if (plain) {
          ++public_pairs_;
        } else {
          other_words_ = true;
        }
        continue;
      }
      other_words_ = true;
      if (i + 1 == words.size()) break;
      // "-e NAME image": docker passes the variable NAME on; the image is no value of it.
      if (i > 0 && (words[i - 1] == "-e" || words[i - 1] == "--env")) continue;
      std::string_view name = word;
      const bool flag = name.starts_with('-');  // "--password X"
      while (name.starts_with('-')) name.remove_prefix(1);
      const bool marked = name.ends_with(':') || name.ends_with('=');  // "X-Api-Key: X"
      if (marked) name.remove_suffix(1);
      // "password = X" (TOML, INI, properties, HCL: probe JJ1) as "password X".
      const bool separated = (words[i + 1] == "=" || words[i + 1] == ":") && i + 2 < words.size();
      const std::string_view value = words[i + (separated ? 2 : 1)];
      const std::string lower = AsciiLower(name);
      // An HTTP authorization scheme: "Bearer X", "Basic X", "Token X" (capitalized as
      // headers write it; "create token NAME" is a command's word, probe JS6).
      if (lower == "bearer" || lower == "basic" || name == "Token") {
        if (!IsSecretReference(value)) AddValue(value);
      } else {
        AddNamed(name, value, /*loose=*/!flag && !marked && !separated);
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
