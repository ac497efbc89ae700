#include "tools/carried_secrets.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace las::tools {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

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

// Adds `secret`, trimmed, to `list` unless it is empty or there already.
void AddOnce(std::string_view secret, std::vector<std::string>& list) {
  secret = Trimmed(secret);
  if (secret.empty() || std::find(list.begin(), list.end(), secret) != list.end()) return;
  list.emplace_back(secret);
}

// Where a URL that starts at `from` ends: whitespace, a quote, ',', ';' or the end.
size_t UrlEnd(std::string_view value, size_t from) {
  const size_t end = value.find_first_of(" \t\r\n\"',;<>", from);
  return end == std::string_view::npos ? value.size() : end;
}

void AddUrlPasswords(std::string_view value, std::vector<std::string>& found) {
  for (size_t scheme = value.find("://"); scheme != std::string_view::npos;
       scheme = value.find("://", scheme + 3)) {
    const size_t start = scheme + 3;
    const size_t end = UrlEnd(value, start);
    const std::string_view url = value.substr(start, end - start);
    const size_t authority_end = std::min(url.find_first_of("/?#"), url.size());
    const size_t colon = url.find(':');
    if (colon == std::string_view::npos) continue;
    size_t at = std::string_view::npos;
    if (const size_t in_authority = url.substr(0, authority_end).rfind('@');
        in_authority != std::string_view::npos) {
      at = in_authority;  // as RFC 3986 reads it
    } else if (colon < authority_end) {
      // A password holding '/', '?' or '#' unencoded (drivers take it): up to the URL's last
      // '@' — unless what follows the ':' is a port ("host:8080/docs/@scope").
      const std::string_view port = url.substr(colon + 1, authority_end - colon - 1);
      const bool is_port = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
        return c >= '0' && c <= '9';
      });
      if (!is_port) at = url.rfind('@');
    }
    if (at == std::string_view::npos || colon > at) continue;
    const std::string_view password = url.substr(colon + 1, at - colon - 1);
    AddOnce(password, found);
    if (password.find('%') != std::string_view::npos) AddOnce(PercentDecoded(password), found);
  }
}

// "Bearer X", "Basic X", "Token X": X.
void AddSchemeCredential(std::string_view item, std::vector<std::string>& found) {
  item = Trimmed(item);
  const std::string lower = Lower(item.substr(0, 7));
  for (const std::string_view scheme : {"bearer ", "basic ", "token "}) {
    if (lower.starts_with(scheme)) AddOnce(item.substr(scheme.size()), found);
  }
}

// A secret-named member's value: the whole of it, and the credential after a scheme.
void AddSecretValue(std::string_view value, std::vector<std::string>& found) {
  AddOnce(value, found);
  AddSchemeCredential(value, found);
}

// Configuration nests a few levels; a value nested deeper is not walked (a variable of
// 100,000 brackets must not exhaust the stack).
constexpr int kMostJsonDepth = 32;

void AddFromJson(const nlohmann::json& node, std::vector<std::string>& found, int depth = 0) {
  if (depth > kMostJsonDepth) return;
  if (node.is_object()) {
    for (const auto& [key, member] : node.items()) {
      if (member.is_string() && SecretName(key)) {
        AddSecretValue(member.get_ref<const std::string&>(), found);
      } else if (member.is_string()) {
        AddSchemeCredential(member.get_ref<const std::string&>(), found);
      } else {
        AddFromJson(member, found, depth + 1);
      }
    }
  } else if (node.is_array()) {
    for (const auto& element : node) AddFromJson(element, found, depth + 1);
  }
}

// `nested`: `value` is a secret-named item's rest, whose own pairs are read once more
// ("Cookie: sessionid=...") and no deeper ("token=token=..." must not recurse per '=').
void AddFromPairs(std::string_view value, std::vector<std::string>& found, bool nested = false) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find_first_of(",;&\r\n", start);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view item = value.substr(start, end - start);
    const size_t split = item.find_first_of("=:");
    if (split != std::string_view::npos && SecretName(Trimmed(item.substr(0, split)))) {
      const std::string_view rest = item.substr(split + 1);
      AddSecretValue(rest, found);
      if (!nested) AddFromPairs(rest, found, /*nested=*/true);
    } else {
      AddSchemeCredential(item, found);
    }
    start = end + 1;
  }
}

}  // namespace

bool SecretName(std::string_view name) {
  const std::string lower = Lower(name);
  for (const std::string_view part : {"auth", "token", "secret", "passw", "pwd", "cookie",
                                      "session", "credential", "apikey", "api-key", "api_key"}) {
    if (lower.find(part) != std::string::npos) return true;
  }
  size_t start = 0;
  while (start <= lower.size()) {
    size_t end = lower.find_first_of("-_. ", start);
    if (end == std::string::npos) end = lower.size();
    const std::string_view word = std::string_view(lower).substr(start, end - start);
    if (word == "key" || word.ends_with("accesskey")) return true;
    start = end + 1;
  }
  return false;
}

CarriedSecrets SecretsCarriedIn(std::string_view value) {
  CarriedSecrets found;
  AddUrlPasswords(value, found.url_passwords);
  const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() || parsed.is_array()) {
    AddFromJson(parsed, found.values);
  } else {
    AddFromPairs(value, found.values);
  }
  return found;
}

}  // namespace las::tools
