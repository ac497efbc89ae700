#include "tools/secret_text.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>
#include <sodium.h>


namespace las::tools {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr size_t kShortestDecodedText = 8;

// Random rather than a word or a number: 10 or more characters mixing letters and digits
// ("0123456789ab" of "sk_search_0123456789ab"), or 16 or more mixing cases (a Slack
// token's last part).
bool TokenLikePiece(std::string_view piece) {
  bool digit = false, lower = false, upper = false;
  for (const char c : piece) {
    digit = digit || (c >= '0' && c <= '9');
    lower = lower || (c >= 'a' && c <= 'z');
    upper = upper || (c >= 'A' && c <= 'Z');
  }
  return (piece.size() >= 10 && digit && (lower || upper)) || (piece.size() >= 16 && lower && upper);
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
    if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 && HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
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

bool HasTokenPiece(std::string_view text) {
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find_first_of("-_.", start), text.size());
    if (TokenLikePiece(text.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

bool IsSecretReference(std::string_view value) {
  value = TrimmedOfBlanksAndQuotes(value);
  for (const std::string_view start : {"${", "{{", "$(", "%(", "<%", "var.", "local.", "arn:", "op://", "vault:"}) {
    if (value.starts_with(start)) return true;
  }
  return value.starts_with("projects/") && value.find("/secrets/") != std::string_view::npos;
}

}  // namespace las::tools
