#include "tools/secret_text.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>
#include <sodium.h>

#include "base/hex.h"

namespace las::tools {
namespace {

constexpr size_t kShortestDecodedText = 8;

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A run of letters and digits that reads as a word or a number: a number, maybe with a
// short unit ("2024", "1h", "1024MB"), or two joined by ISO 8601's 'T' ("15T10"); or words
// — lower, UPPER, Capitalized or camelCase ("hykdyd", "PROD", "WarehouseProd") — maybe
// followed by a number ("web01", "ed25519", "Stmt1700000000000"). Not "0123456789ab" or
// "ba9876543210", and not camelCase of three or more capitals whose words average under
// four letters ("TmPyrPeDnQuv": probe JU4).
bool WordOrNumber(std::string_view run) {
  size_t i = 0;
  if (IsDigit(run[0])) {
    while (i < run.size() && IsDigit(run[i])) ++i;
    if (i == run.size()) return true;
    if (run[i] == 'T' && i + 1 < run.size() && std::all_of(run.begin() + i + 1, run.end(), IsDigit)) return true;
    return i <= 4 && run.size() - i <= 2 && std::all_of(run.begin() + i, run.end(), [](char c) { return !IsDigit(c); });
  }
  size_t letters_end = 0;
  while (letters_end < run.size() && !IsDigit(run[letters_end])) ++letters_end;
  if ((letters_end < 3 && run.size() - letters_end > 6) ||
      !std::all_of(run.begin() + letters_end, run.end(), IsDigit)) {
    return false;
  }
  const std::string_view letters = run.substr(0, letters_end);
  if (std::all_of(letters.begin(), letters.end(), IsUpper)) return true;
  // Words of one capital (or none, first) and lower-case letters after it.
  size_t capitals = 0;
  while (i < letters.size()) {
    if (IsUpper(letters[i])) {
      ++i;
      ++capitals;
    }
    const size_t lower_start = i;
    while (i < letters.size() && IsLower(letters[i])) ++i;
    if (i == lower_start) return false;  // "JJ", "WAm": a capital not starting a word
  }
  return capitals < 3 || letters.size() >= 4 * capitals;
}

// Groups of one length (4 or more), three or more, joined by '-' or spaces, one digit among
// them: a generated format — Keychain's "xidXah-bikpi3-qigpud", a TOTP setup key "gmps mqvm
// rwip 46hd", a product key (probes JU2, JU5).
bool EvenGroups(std::string_view text) {
  if (text.find_first_of("0123456789") == std::string_view::npos) return false;
  size_t groups = 0, length = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find_first_of("- ", start), text.size());
    const size_t size = end - start;
    if (size < 4 || (length != 0 && size != length)) return false;
    length = size;
    ++groups;
    start = end + 1;
  }
  return groups >= 3;
}

// A generated password's symbols beside letters and digits ("Up#gtcx3*btvzRbo", a Django
// SECRET_KEY): characters no path, URL, version or name holds (probe JU4).
bool PasswordSymbols(std::string_view text) {
  return text.size() >= 12 && text.find_first_of("!*^~|()") != std::string_view::npos &&
         text.find_first_of("0123456789") != std::string_view::npos &&
         std::any_of(text.begin(), text.end(), [](char c) { return IsLower(c) || IsUpper(c); });
}

}  // namespace

std::string_view TrimmedOfBlanksAndQuotes(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r\n\"'";
  const size_t first = text.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlank) - first + 1);
}

std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexDigitValue(text[i + 1]) >= 0 && HexDigitValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigitValue(text[i + 1]) * 16 + HexDigitValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string BackslashUnescaped(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

std::string DoubleQuotedUnescaped(std::string_view text) {
  if (text.find('\\') == std::string_view::npos) return {};
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted += '"';
  quoted += text;
  quoted += '"';
  const nlohmann::json parsed = nlohmann::json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  return parsed.is_string() ? parsed.get<std::string>() : std::string();
}

std::string Base64DecodedText(std::string_view text) {
  if (text.size() < 12) return {};
  std::string decoded(text.size(), '\0');
  size_t length = 0;
  for (const int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING,
                            sodium_base64_VARIANT_URLSAFE, sodium_base64_VARIANT_URLSAFE_NO_PADDING}) {
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

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '$';
}

bool IsDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool HasRandomRun(std::string_view text) {
  if (EvenGroups(text) || PasswordSymbols(text)) return true;
  const auto alnum = [](char c) { return IsLower(c) || IsUpper(c) || IsDigit(c); };
  for (size_t start = 0; start < text.size();) {
    if (!alnum(text[start])) {
      ++start;
      continue;
    }
    size_t end = start;
    while (end < text.size() && alnum(text[end])) ++end;
    if (!WordOrNumber(text.substr(start, end - start))) return true;
    start = end;
  }
  return false;
}

bool IsSecretReference(std::string_view value) {
  value = TrimmedOfBlanksAndQuotes(value);
  for (const std::string_view start : {"${", "{{", "$(", "%(", "<%", "var.", "local.", "arn:", "op://", "vault:"}) {
    if (value.starts_with(start)) return true;
  }
  // "$PROD_REGISTRY_PASSWORD_V2": a shell variable (probe JS11).
  if (value.size() > 1 && value[0] == '$' &&
      std::all_of(value.begin() + 1, value.end(), [](char c) { return IsUpper(c) || IsDigit(c) || c == '_'; })) {
    return true;
  }
  return value.starts_with("projects/") && value.find("/secrets/") != std::string_view::npos;
}

bool LooksLikeAPath(std::string_view value) {
  value = TrimmedOfBlanksAndQuotes(value);
  if (value.empty() || value.find_first_of(" \t\r\n") != std::string_view::npos ||
      value.find("://") != std::string_view::npos) {
    return false;
  }
  const size_t slash = value.find('/');
  if (slash == std::string_view::npos) return false;
  const bool rooted = value.starts_with('/') || value.starts_with("~/") || value.starts_with("./");
  // A file's extension: base64 holds no '.', so a key that holds a '/' does not end so.
  const size_t dot = value.rfind('.');
  const bool extension = dot != std::string_view::npos && dot > slash && value.size() - dot - 1 >= 1 &&
                         value.size() - dot - 1 <= 5 &&
                         std::all_of(value.begin() + dot + 1, value.end(), [](char c) { return IsLower(c) || IsDigit(c); });
  return extension || (rooted && value.find('/', slash + 1) != std::string_view::npos &&
                       value.find('.') != std::string_view::npos);
}

std::string_view ReferenceDefault(std::string_view value) {
  value = TrimmedOfBlanksAndQuotes(value);
  if (value.starts_with("${") && value.ends_with('}')) {
    std::string_view inside = value.substr(2, value.size() - 3);
    size_t name_end = 0;
    while (name_end < inside.size() && (IsLower(inside[name_end]) || IsUpper(inside[name_end]) ||
                                        IsDigit(inside[name_end]) || inside[name_end] == '_' || inside[name_end] == '.')) {
      ++name_end;
    }
    inside.remove_prefix(name_end);
    for (const std::string_view operation : {":-", ":=", ":+", "-", "=", "+"}) {
      if (inside.starts_with(operation)) return inside.substr(operation.size());
    }
    // Spring's "${NAME:default}"; not the shell's "${NAME:?message}".
    if (inside.starts_with(':') && !inside.starts_with(":?")) return inside.substr(1);
    return {};
  }
  // A Go or Helm template's "default \"VALUE\"".
  const size_t marker = value.find("default ");
  if (!value.starts_with("{{") || marker == std::string_view::npos) return {};
  std::string_view rest = value.substr(marker + 8);
  while (!rest.empty() && (rest.front() == '\\' || rest.front() == ' ')) rest.remove_prefix(1);
  if (!rest.starts_with('"')) return {};
  rest.remove_prefix(1);
  return rest.substr(0, std::min(rest.find_first_of("\\\""), rest.size()));
}

}  // namespace las::tools
