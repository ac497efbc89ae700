#include "tools/credentials.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_decimal.h"
#include "base/ascii_case.h"
#include "base/hex.h"
#include "base/json_string.h"
#include "base/utf8.h"
#include "tools/carried_secrets.h"
#include "tools/credential_encodings.h"
#include "tools/secret_text.h"
#include "transport/json_text.h"

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name) {
  std::string variable(trust::kCredentialVariablePrefix);
  for (char c : credential_name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    variable.push_back(keep ? c : '_');
  }
  return variable;
}

trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment) {
  return [&environment](std::string_view name) -> std::optional<std::string> {
    // An empty value is no credential (and would be "echoed" by every result).
    auto it = environment.find(CredentialVariable(name));
    if (it == environment.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

namespace {

using Needles = CredentialSpellings::Needles;

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// `lower` (ASCII-lowercased) with each %XX turned into its byte, lowercased in turn; what
// is no such escape stays as written.
std::string PercentDecodedLower(std::string_view lower) {
  std::string out;
  out.reserve(lower.size());
  for (size_t i = 0; i < lower.size(); ++i) {
    const int high = lower[i] == '%' && i + 2 < lower.size() ? HexDigitValue(lower[i + 1]) : -1;
    const int low = high >= 0 ? HexDigitValue(lower[i + 2]) : -1;
    if (low < 0) {
      out.push_back(lower[i]);
      continue;
    }
    const char byte = static_cast<char>(high * 16 + low);
    out.push_back(byte >= 'A' && byte <= 'Z' ? static_cast<char>(byte - 'A' + 'a') : byte);
    i += 2;
  }
  return out;
}

// JSON's string escapes in `text` undone once, leniently (what is no JSON escape stays as
// written): what a reader gets from a string that holds JSON text, e.g. a tool's text
// content `{"auth": "ab12\/cd34"}`, once it parses it.
std::string UnescapeJsonOnce(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out.push_back(text[i]);
      continue;
    }
    const char escape = text[i + 1];
    switch (escape) {
      case '"': case '\\': case '/': out.push_back(escape); ++i; continue;
      case 'b': out.push_back('\b'); ++i; continue;
      case 'f': out.push_back('\f'); ++i; continue;
      case 'n': out.push_back('\n'); ++i; continue;
      case 'r': out.push_back('\r'); ++i; continue;
      case 't': out.push_back('\t'); ++i; continue;
      default: break;
    }
    const std::optional<char32_t> unit =
        escape == 'u' ? JsonEscapeUnit(text.substr(i + 2)) : std::nullopt;
    if (!unit) {
      out.push_back(text[i]);
      continue;
    }
    i += 5;
    char32_t code_point = *unit;
    if (code_point >= 0xD800 && code_point < 0xDC00 && text.substr(i + 1, 2) == "\\u") {
      if (std::optional<char32_t> low = JsonEscapeUnit(text.substr(i + 3));
          low && *low >= 0xDC00 && *low < 0xE000) {
        code_point = 0x10000 + ((code_point - 0xD800) << 10) + (*low - 0xDC00);
        i += 6;
      }
    }
    AppendUtf8(code_point, out);
  }
  return out;
}

// Levels of percent-encoding undone: %252F is %2F once decoded, / twice.
inline constexpr int kPercentLevels = 3;

// A credential or one of its spellings in `lower`; a spelling also across the line breaks
// of a wrapped encoding: encoders wrap base64 and hex into lines (76 columns for MIME, 64
// for PEM), and a break may fall inside the credential's spelling (probe AD1).
bool CarriesAsWrittenOrWrapped(std::string lower, const Needles& needles) {
  if (needles.either.FoundIn(lower)) return true;
  if (std::none_of(lower.begin(), lower.end(), IsAsciiSpace)) return false;
  std::erase_if(lower, IsAsciiSpace);
  return needles.spellings.FoundIn(lower);
}

// A URL that quotes a credential (an error naming the request that failed) spells its
// bytes outside the unreserved ones as %XX, in either case, maybe more than once, and a
// form writes a space as '+' (probes BD3, BE2); what it quotes may be JSON text, whose
// escapes are undone too. Each decoded text is looked at as the result itself is: the
// credential's base64 and hex spellings count inside a URL too ("?auth=" and a Basic
// header's base64, whose '+' and '/' a URL writes %2B and %2F: probe GK1).
bool CarriesPercentEncoded(std::string_view lower, const Needles& needles) {
  std::string encoded(lower);
  for (int level = 0; level < kPercentLevels; ++level) {
    const bool escapes = encoded.find('%') != std::string::npos;
    // As a form decodes: '+' is a space, then each %XX its byte (%2B a '+').
    if (needles.spaced_credential && encoded.find('+') != std::string::npos) {
      std::string form = encoded;
      std::replace(form.begin(), form.end(), '+', ' ');
      if (needles.credentials.FoundIn(escapes ? PercentDecodedLower(form) : form)) return true;
    }
    if (!escapes) return false;
    encoded = PercentDecodedLower(encoded);
    if (CarriesAsWrittenOrWrapped(encoded, needles)) return true;
    // JSON text quoted into a URL: its escapes ("\/", "\u002b") appear once decoded.
    if (encoded.find('\\') != std::string::npos &&
        CarriesAsWrittenOrWrapped(UnescapeJsonOnce(encoded), needles)) {
      return true;
    }
  }
  return false;
}

bool CarriesAny(std::string_view text, const Needles& needles) {
  std::string lower = AsciiLower(text);
  return CarriesPercentEncoded(lower, needles) || CarriesAsWrittenOrWrapped(std::move(lower), needles);
}

// JSON text inside a string may itself hold JSON text: each level is one more decode.
inline constexpr int kNestedJsonLevels = 8;

// The number a credential of decimal digits (an optional '-' first) is; nullopt for any
// other credential.
std::optional<JsonDecimal> NumberOf(std::string_view value) {
  const std::string_view digits = value.starts_with('-') ? value.substr(1) : value;
  const bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                         [](char c) { return c >= '0' && c <= '9'; });
  if (!all_digits) return std::nullopt;
  return ParseJsonDecimal(value);
}

// One pass over the result as a JSON reader takes it: strings and keys decoded, numbers
// by exact value (no double: 7.3918264e7 and 73918264.0 are 73918264, 73918264.5 is not).
// Stops at the first credential found, or where the text stops being JSON.
class DecodedScan final : public nlohmann::json_sax<nlohmann::json> {
 public:
  // The credentials of digits are also looked for as numbers. With `strings_as_written`
  // (the text has no escape), every string decodes to the bytes it is written with, which
  // CarriesAny has looked at in the whole text already: only numbers are left to look at,
  // those of the text and those of JSON text its strings hold.
  DecodedScan(const Needles& needles, const std::vector<std::string>& credentials,
              bool strings_as_written)
      : needles_(needles), strings_as_written_(strings_as_written) {
    for (std::string_view value : credentials) {
      if (std::optional<JsonDecimal> number = NumberOf(value)) {
        numbers_.push_back(std::move(*number));
        doubles_.push_back(std::strtod(std::string(value).c_str(), nullptr));
      }
    }
  }
  bool found() const { return found_; }
  bool looks_at_numbers() const { return !numbers_.empty(); }

  // The same scan of JSON text held in a string, one level deeper (numbers_ shared in
  // value).
  DecodedScan(const DecodedScan& holder, bool strings_as_written)
      : needles_(holder.needles_),
        strings_as_written_(strings_as_written),
        numbers_(holder.numbers_),
        doubles_(holder.doubles_),
        depth_(holder.depth_ + 1) {}

  bool null() override { return true; }
  bool boolean(bool /*unused*/) override { return true; }
  bool number_integer(number_integer_t v) override { return numbers_.empty() || Number(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return numbers_.empty() || Number(std::to_string(v)); }
  bool number_float(number_float_t v, const string_t& text) override { return Number(text) && Double(v); }
  bool string(string_t& text) override { return Text(text); }
  bool binary(binary_t& /*unused*/) override { return true; }
  bool start_object(std::size_t /*unused*/) override { return true; }
  bool key(string_t& text) override { return Text(text); }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*unused*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                   const nlohmann::detail::exception& /*unused*/) override {
    return false;
  }

 private:
  // Each returns whether to go on.
  bool Text(std::string_view text) {
    if (!strings_as_written_) {
      found_ = CarriesAny(text, needles_);
      // A string that holds JSON text carries what its reader decodes from it: `\/`,
      // `\u0073` (probe Z1), at every level of nesting.
      std::string decoded(found_ ? std::string_view() : text);
      for (int level = 0; !found_ && level < kNestedJsonLevels &&
                          decoded.find('\\') != std::string::npos;
           ++level) {
        decoded = UnescapeJsonOnce(decoded);
        found_ = CarriesAny(decoded, needles_);
      }
      if (found_) return false;
    }
    return !NumberInHeldJson(text);
  }

  // ... and the numbers of that JSON text, by value, as its reader decodes them: a string
  // `{"m":7.3918264e7}` or `[73918264.0]` carries 73918264 (probe BO1), at every level of
  // nesting. Only text that may be JSON with a number in it is parsed.
  bool NumberInHeldJson(std::string_view text) {
    if (numbers_.empty() || depth_ >= kNestedJsonLevels) return false;
    const size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return false;
    const char first = text[start];
    if (first != '{' && first != '[' && first != '-' && (first < '0' || first > '9')) return false;
    DecodedScan held(*this, /*strings_as_written=*/text.find('\\') == std::string_view::npos);
    nlohmann::json::sax_parse(text.begin(), text.end(), &held);
    found_ = held.found();
    return found_;
  }
  bool Number(std::string_view token) {
    if (numbers_.empty()) return true;
    const JsonDecimal value = ParseJsonDecimal(token);
    for (const JsonDecimal& number : numbers_) {
      // An unsigned credential's negative carries it, as the bytes of -73918264 carry
      // 73918264; a negative credential needs a negative number.
      if (value.digits == number.digits && value.exponent == number.exponent &&
          (value.negative || !number.negative)) {
        found_ = true;
        return false;
      }
    }
    return true;
  }

  // A number written with more digits than a double holds is read as the nearest double by
  // every JSON reader that uses them: 73918263.99999999999999 reads as 73918264. Such a
  // number carries the credential whose double it equals (for one beyond 2^53, most of it).
  bool Double(double v) {
    for (double credential : doubles_) {
      if (std::fabs(v) == std::fabs(credential) && (v < 0 || credential >= 0)) {
        found_ = true;
        return false;
      }
    }
    return true;
  }

  const Needles& needles_;
  const bool strings_as_written_;
  std::vector<JsonDecimal> numbers_;
  std::vector<double> doubles_;  // numbers_ as doubles
  int depth_ = 0;                // levels of JSON text held in strings above this one
  bool found_ = false;
};

// A value that is not UTF-8 never appears whole in JSON: a child that hands it back must
// spell its stray bytes some other way, or drop them. So these are looked for too (probes
// FE1, FJ2): the value with each stray byte dropped, replaced by U+FFFD (a lossy decoder's
// choice: Python errors="replace", Rust, JavaScript), written as Python's surrogate escape
// "\udcXX" or its backslash escape "\xXX" (as JSON text shows them), and each well-formed
// stretch long enough not to match by chance.
std::vector<std::string> SpellingsOfStrayBytes(std::string_view value) {
  std::vector<std::string> spellings;
  std::string dropped, replaced, surrogate_escaped, backslash_escaped;
  size_t start = 0;
  size_t pos = 0;
  bool stray = false;
  auto end_stretch = [&](size_t end) {
    if (end - start >= kMinCrossSurfaceCredentialBytes) {
      spellings.emplace_back(value.substr(start, end - start));
    }
  };
  while (pos < value.size()) {
    const size_t at = pos;
    if (DecodeUtf8(value, &pos)) {
      const std::string_view character = value.substr(at, pos - at);
      for (std::string* out : {&dropped, &replaced, &surrogate_escaped, &backslash_escaped}) {
        out->append(character);
      }
      continue;
    }
    stray = true;
    end_stretch(at);
    const uint8_t byte = static_cast<uint8_t>(value[at]);
    const std::string hex = ToHex(std::span<const uint8_t>(&byte, 1));
    replaced += "\xEF\xBF\xBD";
    surrogate_escaped += "\\udc" + hex;
    backslash_escaped += "\\x" + hex;
    pos = at + 1;
    start = pos;
  }
  if (!stray) return spellings;
  end_stretch(value.size());
  // Dropped, the stray bytes leave plain text, which must be long enough not to match by
  // chance; the other spellings carry their replacement or escape.
  if (dropped.size() >= kMinCrossSurfaceCredentialBytes) spellings.push_back(std::move(dropped));
  for (std::string* whole : {&replaced, &surrogate_escaped, &backslash_escaped}) {
    spellings.push_back(std::move(*whole));
  }
  return spellings;
}

}  // namespace

CredentialSpellings::CredentialSpellings(const std::vector<std::string>& values) {
  std::vector<std::string> encoded;
  auto look_for = [&](std::string_view value) {
    credentials_.push_back(AsciiLower(value));
    for (std::string& form : EncodedForms(value)) encoded.push_back(AsciiLower(form));
  };
  for (const std::string& value : values) {
    if (value.size() < kMinCheckedCredentialBytes) continue;
    look_for(value);
    for (const std::string& spelling : SpellingsOfStrayBytes(value)) look_for(spelling);
    // Base64 of JSON text that holds the value escaped (probe GK3); the escaped text
    // itself is found by decoding the result's JSON.
    for (const std::string& form : JsonStringForms(value)) {
      for (std::string& spelling : EncodedForms(form)) encoded.push_back(AsciiLower(spelling));
    }
  }
  needles_.spaced_credential = std::any_of(credentials_.begin(), credentials_.end(), [](const std::string& value) {
    return value.find(' ') != std::string::npos;
  });
  needles_.credentials = NeedleSet(credentials_);
  std::vector<std::string> either = credentials_;
  either.insert(either.end(), encoded.begin(), encoded.end());
  needles_.spellings = NeedleSet(std::move(encoded));
  needles_.either = NeedleSet(std::move(either));
}

bool CredentialSpellings::EchoedIn(std::string_view result_json) const {
  if (credentials_.empty()) return false;
  if (CarriesAny(result_json, needles_)) return true;
  const bool escapes = result_json.find('\\') != std::string_view::npos;
  DecodedScan scan(needles_, credentials_, /*strings_as_written=*/!escapes);
  if (!escapes && !scan.looks_at_numbers()) return false;
  nlohmann::json::sax_parse(result_json.begin(), result_json.end(), &scan);
  return scan.found();
}

bool EchoesCredential(std::string_view result_json, const std::vector<std::string>& values) {
  return CredentialSpellings(values).EchoedIn(result_json);
}

bool LooksLikeAToken(std::string_view word) {
  const bool digit = std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool letter = std::any_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
  return word.size() >= kMinUnguessableCredentialBytes && digit && letter;
}

namespace {

// The words of a value made of several (split at whitespace, a no-break space, ',', ';',
// '=', ':', quotes, brackets, braces, '&', '?' and '@' — JSON of headers, a query, a URL's
// user part) that look like tokens: kMinUnguessableCredentialBytes or longer, letters and
// digits mixed — the token of "Bearer TOKEN", "Authorization: Bearer TOKEN", "token=TOKEN",
// the password of "user:PASSWORD". A child that says "invalid token TOKEN" hands back the
// secret without the rest (probes HW2, HX1). Shorter words match ordinary text by chance
// (HX3); words without a digit are the public parts — a user name, an e-mail address, a
// header name, a URL's host and path — whose mention must not refuse a result (HZ5).
std::vector<std::string_view> TokenWords(std::string_view value) {
  std::vector<std::string_view> words;
  size_t start = 0;
  auto end_word = [&](size_t end) {
    const std::string_view word = value.substr(start, end - start);
    if (word.size() < value.size() && LooksLikeAToken(word)) words.push_back(word);
  };
  for (size_t i = 0; i < value.size();) {
    const bool no_break_space = value.compare(i, 2, "\xC2\xA0") == 0;
    const char c = value[i];
    constexpr std::string_view kWordEnds = " \t\n\r\f\v,;=:\"'{}[]&?@";
    if (no_break_space || kWordEnds.find(c) != std::string_view::npos) {
      end_word(i);
      i += no_break_space ? 2 : 1;
      start = i;
      continue;
    }
    ++i;
  }
  end_word(value.size());
  return words;
}

// `value`, after its token-like words (CredentialValuesOf), at most `words_left` of them
// (counted down): a secret of more words is a document (a PEM key has some 50 lines), and
// each word costs its spellings at every start (probe JJ9: 128 KiB of 16-byte words took
// 6 s; JP8: 64 secrets of 256 words each in one variable, 5 s).
constexpr size_t kMostTokenWordsPerVariable = 256;
void AddValueAndItsTokenWords(std::string value, std::vector<std::string>& values,
                              size_t& words_left) {
  for (const std::string_view word : TokenWords(value)) {
    if (words_left == 0) break;
    --words_left;
    values.emplace_back(word);
  }
  values.push_back(std::move(value));
}

// The whole value of variable `name` when the name is a secret's (`carried`: what the
// value was found to carry). By its token-like words only when nothing in it was found to
// be the secret and it is not a list of public pairs: a connection string's hosts and user
// names are public (probes JJ7, JM5). Under a name that may name something public, only a
// value that holds a run reading as no word and is no URL ("SESSION=ci-run-20240115-1234"
// is public); never a path or a reference to a secret kept elsewhere (probes JP2-JP4,
// JU6-JU9). A whole "user:PASSWORD" (AUTH=elastic:...) by its password too (JS5: taken for
// a public NAME:VALUE pair, only the whole counted).
void AddWholeValueOfASecretsVariable(std::string_view name, const std::string& whole, const CarriedSecrets& carried,
                                     std::vector<std::string>& values, size_t& words_left) {
  const SecretNameKind kind = KindOfSecretName(name);
  if (kind == SecretNameKind::kNone || whole.empty() || IsSecretReference(whole) || LooksLikeAPath(whole)) return;
  const bool url = whole.find("://") != std::string::npos;
  if (kind == SecretNameKind::kMayName && (url || !HasRandomRun(whole))) return;
  const bool found = !carried.values.empty() || !carried.url_passwords.empty();
  if (found || carried.only_public_pairs) {
    values.push_back(whole);
  } else if (LooksLikeAToken(whole) || !TokenWords(whole).empty()) {
    AddValueAndItsTokenWords(whole, values, words_left);
  }
  const size_t colon = whole.find(':');
  if (colon == std::string::npos || colon == 0 || url || whole.find_first_of(" \t\r\n=@") != std::string::npos ||
      !std::all_of(whole.begin(), whole.begin() + colon, IsNameChar)) {
    return;
  }
  std::string password = whole.substr(colon + 1);
  if (password.size() >= kMinCrossSurfaceCredentialBytes && !IsSecretReference(password)) {
    values.push_back(std::move(password));
  }
}

}  // namespace

void AddCredentialValues(const std::map<std::string, std::string>& credential_templates,
                         const trust::CredentialResolver& resolve, std::vector<std::string>& values) {
  for (const auto& [argument, credential] : credential_templates) {
    size_t words_left = kMostTokenWordsPerVariable;
    if (auto value = resolve(credential)) AddValueAndItsTokenWords(std::move(*value), values, words_left);
  }
}

std::vector<std::string> CredentialValuesOf(const trust::SurfaceBinding& surface,
                                            const trust::Environment& environment) {
  std::vector<std::string> values;
  const trust::CredentialResolver resolve = EnvironmentCredentials(environment);
  for (const trust::ToolBinding& tool : surface.tools) {
    AddCredentialValues(tool.credential_templates, resolve, values);
  }
  // Only what looks like a token: a value such as "postgres" or "changeme", or a path, would
  // refuse every surface's results that mention it (probe IX1).
  for (const std::string& name : surface.env) {
    const auto value = environment.find(name);
    if (value == environment.end()) continue;
    // Whatever its name, a variable may carry secrets: headers as JSON
    // (OPENAPI_MCP_HEADERS='{"Authorization":"Bearer ..."}'), a connection string. Those
    // parts count, never its public rest (tools/carried_secrets.h).
    CarriedSecrets carried = SecretsCarriedIn(value->second);
    size_t words_left = kMostTokenWordsPerVariable;
    for (std::string& password : carried.url_passwords) {
      if (password.size() >= kMinCrossSurfaceCredentialBytes) values.push_back(std::move(password));
    }
    for (std::string& secret : carried.values) {
      if (!LooksLikeAToken(secret) && TokenWords(secret).empty()) continue;
      AddValueAndItsTokenWords(std::move(secret), values, words_left);
    }
    AddWholeValueOfASecretsVariable(name, value->second, carried, values, words_left);
  }
  // Each once, in the order found ("Bearer TOKEN" gives TOKEN as a scheme's credential and
  // as a word of the whole value); a set, as a value of thousands of words gives thousands
  // (probe JJ9: a whole-list search made six such variables take 94 s at every start).
  std::vector<std::string> unique;
  std::unordered_set<std::string_view> seen;
  for (const std::string& value : values) {
    if (seen.insert(value).second) unique.push_back(value);
  }
  return unique;
}

std::vector<std::string> CrossSurfaceCredentialValues(const std::vector<trust::SurfaceBinding>& surfaces,
                                                      const trust::Environment& environment) {
  std::vector<std::string> values;
  for (const trust::SurfaceBinding& surface : surfaces) {
    for (std::string& value : CredentialValuesOf(surface, environment)) {
      if (value.size() >= kMinCrossSurfaceCredentialBytes) values.push_back(std::move(value));
    }
  }
  return values;
}

bool ToolDefinitionCarries(const trust::LiveTool& tool, const CredentialSpellings& credentials) {
  if (credentials.empty()) return false;
  return credentials.EchoedIn("[" + transport::QuoteJsonString(tool.name) + "," +
                              transport::QuoteJsonString(tool.description.value_or("")) + "," +
                              tool.input_schema_json + "]");
}

namespace {

// Every string and object key of `json`, appended to `out` as members of a JSON array.
void AddStrings(const nlohmann::json& json, std::string& out) {
  const auto add = [&out](const std::string& text) {
    out += out.size() > 1 ? "," : "";
    out += transport::QuoteJsonString(text);
  };
  if (json.is_string()) add(json.get_ref<const std::string&>());
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      add(key);
      AddStrings(value, out);
    }
  }
  if (json.is_array()) {
    for (const auto& value : json) AddStrings(value, out);
  }
}

}  // namespace

const std::string* VariableWhoseValueIs(const std::string& name, const trust::Environment& environment) {
  if (!LooksLikeAToken(name)) return nullptr;
  for (const auto& [variable, value] : environment) {
    if (variable != name && value == name) return &variable;
  }
  return nullptr;
}

bool ManifestHoldsACredential(const trust::Manifest& manifest, std::string_view manifest_bytes,
                              const trust::Environment& environment,
                              const std::vector<std::string>& credential_values) {
  for (const trust::SurfaceBinding& surface : manifest.surfaces) {
    for (const std::string& name : surface.env) {
      if (VariableWhoseValueIs(name, environment) != nullptr) return true;
    }
  }
  const CredentialSpellings credentials(credential_values);
  if (credentials.empty()) return false;
  // Its strings only: the manifest's numbers (schema_version, sequence) are no secret, and
  // a credential of digits equal to one refused every release (probe KB4: "00000001").
  const nlohmann::json parsed = nlohmann::json::parse(manifest_bytes, nullptr, false);
  if (parsed.is_discarded()) return credentials.EchoedIn(manifest_bytes);
  std::string strings = "[";
  AddStrings(parsed, strings);
  strings += "]";
  return credentials.EchoedIn(strings);
}

std::map<std::string, std::string> CredentialVariablesIn(const trust::Environment& environment) {
  std::map<std::string, std::string> variables;
  for (const auto& [name, value] : environment) {
    if (name.starts_with(trust::kCredentialVariablePrefix) && value.size() >= kMinCrossSurfaceCredentialBytes) {
      variables.emplace(name, value);
    }
  }
  return variables;
}

}  // namespace las::tools
