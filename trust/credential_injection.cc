#include "trust/credential_injection.h"

#include <array>
#include <utility>

#include "base/json_string.h"
#include "base/utf8.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

// `key` as a lenient decoder may take it: up to a NUL (where a C decoder's string ends),
// without surrounding ASCII whitespace, without `_` and `-` (Go's encoding/json/v2 ignores
// them when it matches case-insensitively; pydantic's camelCase aliases take `apiKey` for
// `api_key`: probe CC2), ASCII letters lowered, and the non-ASCII letters that fold or
// change case to an ASCII one as that letter — KELVIN SIGN and LONG S (Go's encoding/json
// matches keys with EqualFold), dotless ı and dotted İ (.NET upper-cases ı to I; Java
// lower-cases İ to i and a dot). Such a decoder may let either member win.
std::string LooseKey(std::string_view key) {
  key = key.substr(0, key.find('\0'));
  constexpr std::string_view kSpace = " \t\r\n";
  const size_t start = key.find_first_not_of(kSpace);
  key = start == std::string_view::npos ? std::string_view() : key.substr(start);
  key = key.substr(0, key.find_last_not_of(kSpace) + 1);
  static constexpr std::array<std::pair<std::string_view, char>, 4> kFoldsToAscii = {{
      {"\xE2\x84\xAA", 'k'},  // U+212A KELVIN SIGN
      {"\xC5\xBF", 's'},      // U+017F LATIN SMALL LETTER LONG S
      {"\xC4\xB1", 'i'},      // U+0131 LATIN SMALL LETTER DOTLESS I
      {"\xC4\xB0", 'i'},      // U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE
  }};
  std::string loose;
  for (size_t i = 0; i < key.size();) {
    bool folded = false;
    for (const auto& [bytes, letter] : kFoldsToAscii) {
      if (key.substr(i, bytes.size()) == bytes) {
        loose += letter;
        i += bytes.size();
        folded = true;
        break;
      }
    }
    if (folded) continue;
    const char c = key[i++];
    if (c == '_' || c == '-') continue;
    loose += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return loose;
}

}  // namespace

bool IsCarriableCredential(std::string_view value) {
  for (size_t pos = 0; pos < value.size();) {
    if (!DecodeUtf8(value, &pos)) return false;
  }
  return true;
}

std::vector<std::string> FilledArguments(const ToolBinding& tool) {
  std::vector<std::string> names;
  for (const auto& [argument, credential] : tool.credential_templates) names.push_back(argument);
  return names;
}

VerdictOr<std::string> InjectCredentials(std::string_view arguments_json, const ToolBinding& tool,
                                         const CredentialResolver& resolve) {
  using internal::Json;
  Json args = Json::object();
  if (!arguments_json.empty()) {
    Result<Json> parsed = internal::ParseStrictJson(arguments_json);
    if (!parsed.ok()) {
      return Reject(Reason::kArgumentsInvalid, "tool " + tool.name + ": arguments are not strict JSON");
      // (the parser's own message can quote the input, which may hold a secret)
    }
    if (!parsed->is_object()) {
      return Reject(Reason::kArgumentsInvalid, "tool " + tool.name + ": arguments must be a JSON object");
    }
    args = std::move(parsed).value();
  }
  // Refuse first, for every templated argument, before resolving any secret: the argument
  // itself, and any key a case-insensitive decoder would take for it (`API_KEY` for
  // `api_key` reached the child beside it, and Go's decoder lets the later one win: probe
  // BZ1).
  std::vector<std::string> loose_arguments;
  for (const auto& [argument, credential] : tool.credential_templates) {
    loose_arguments.push_back(LooseKey(argument));
  }
  for (const auto& [key, value] : args.items()) {
    const std::string loose = LooseKey(key);
    size_t i = 0;
    for (const auto& [argument, credential] : tool.credential_templates) {
      if (loose != loose_arguments[i++]) continue;
      return Reject(Reason::kCredentialOverride,
                    "tool " + tool.name + ": argument \"" + argument +
                        "\" is filled by Las from credential \"" + credential +
                        "\"; a call may not supply it, in any letter case");
    }
  }
  // The client's members exactly as sent, then the filled members, before its closing
  // brace: the tree above only checked them, and its numbers are doubles (2^64 or
  // 1.0000000000000001 would reach the child as other numbers than the log records). Las's
  // come last, so that a reader which lets a later member win takes Las's.
  const size_t close = arguments_json.rfind('}');
  std::string out = close == std::string_view::npos
                        ? std::string("{")
                        : std::string(arguments_json.substr(0, close));
  bool first = args.empty();
  for (const auto& [argument, credential] : tool.credential_templates) {
    std::optional<std::string> secret = resolve(credential);
    if (!secret) {
      return Reject(Reason::kCredentialUnavailable,
                    "tool " + tool.name + ": credential \"" + credential + "\" (for argument \"" +
                        argument + "\") is not available");
    }
    if (!IsCarriableCredential(*secret)) {
      // Such a secret cannot be carried in JSON; say which, not what.
      return Reject(Reason::kCredentialUnavailable,
                    "tool " + tool.name + ": a credential value is not valid UTF-8");
    }
    if (!first) out += ',';
    first = false;
    AppendJsonString(argument, out);
    out += ':';
    AppendJsonString(*secret, out);
  }
  out += close == std::string_view::npos ? std::string_view("}") : arguments_json.substr(close);
  return out;
}

}  // namespace las::trust
