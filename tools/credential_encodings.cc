#include "tools/credential_encodings.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>

#include "base/utf8.h"

namespace las::tools {
namespace {

std::string Hex(std::string_view bytes) {
  std::string hex(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                 bytes.size());
  hex.pop_back();
  return hex;
}

std::string Base64(std::string_view bytes, int variant) {
  std::string text(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(text.data(), text.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  text.resize(text.find('\0'));
  return text;
}

void AddIfLongEnough(std::string form, std::vector<std::string>& forms) {
  if (form.size() < kMinEncodedFormChars) return;
  for (const std::string& known : forms) {
    if (known == form) return;
  }
  forms.push_back(std::move(form));
}

// How a JSON writer escapes a string's characters beyond the escapes JSON requires.
struct JsonWriterEscapes {
  bool slash;                // '/' as "\/"
  bool beyond_ascii;         // every character beyond ASCII as \uXXXX (a surrogate pair above U+FFFF)
  std::string_view as_unit;  // these ASCII characters as \u00XX too
  bool upper_hex;            // \u00E4, not \u00e4
};

constexpr std::array<JsonWriterEscapes, 7> kJsonWriters = {{
    {false, false, "", false},               // most writers (JSON.stringify, nlohmann, serde)
    {true, false, "", false},                // PHP json_encode with JSON_UNESCAPED_UNICODE
    {false, true, "", false},                // Python json.dumps
    {true, true, "", false},                 // PHP json_encode
    {false, false, "<>&", false},            // Go encoding/json
    {false, true, "", true},                 // Jackson with ESCAPE_NON_ASCII
    {false, true, "<>&'+`\"", true},         // .NET System.Text.Json
}};

std::string Escaped(std::string_view value, const JsonWriterEscapes& writer) {
  std::string out;
  auto unit = [&out, &writer](char32_t code_unit) {
    char text[16];
    std::snprintf(text, sizeof text, writer.upper_hex ? "\\u%04X" : "\\u%04x",
                  static_cast<unsigned>(code_unit));
    out += text;
  };
  for (size_t i = 0; i < value.size();) {
    const unsigned char byte = static_cast<unsigned char>(value[i]);
    if (byte >= 0x80 && writer.beyond_ascii) {
      size_t next = i;
      if (const std::optional<char32_t> code_point = DecodeUtf8(value, &next)) {
        if (*code_point >= 0x10000) {
          unit(0xD800 + ((*code_point - 0x10000) >> 10));
          unit(0xDC00 + ((*code_point - 0x10000) & 0x3FF));
        } else {
          unit(*code_point);
        }
        i = next;
        continue;
      }
    }
    ++i;
    if (byte < 0x80 && writer.as_unit.find(static_cast<char>(byte)) != std::string_view::npos) {
      unit(byte);
      continue;
    }
    const char* short_escape = nullptr;
    switch (byte) {
      case '"': short_escape = "\\\""; break;
      case '\\': short_escape = "\\\\"; break;
      case '\b': short_escape = "\\b"; break;
      case '\f': short_escape = "\\f"; break;
      case '\n': short_escape = "\\n"; break;
      case '\r': short_escape = "\\r"; break;
      case '\t': short_escape = "\\t"; break;
      case '/': short_escape = writer.slash ? "\\/" : nullptr; break;
      default: break;
    }
    if (short_escape != nullptr) {
      out += short_escape;
    } else if (byte < 0x20) {
      unit(byte);
    } else {
      out.push_back(static_cast<char>(byte));
    }
  }
  return out;
}

// Hex with each byte written apart as debug output does: "53:65" (OpenSSL, MAC-style),
// "53-65" (.NET's BitConverter), "\x53\x65" (C and Python escapes) (probes HW1, HX2).
std::string SeparatedHex(std::string_view bytes, std::string_view before, std::string_view between) {
  const std::string hex = Hex(bytes);
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    if (i > 0) out += between;
    out += before;
    out.append(hex, i, 2);
  }
  return out;
}

}  // namespace

std::vector<std::string> EncodedForms(std::string_view value) {
  std::vector<std::string> forms;
  AddIfLongEnough(Hex(value), forms);
  // Only where the plain hex is looked for: the separators alone would lengthen a short
  // value's spelling past the bound (probe HX4).
  if (value.size() * 2 >= kMinEncodedFormChars) {
    AddIfLongEnough(SeparatedHex(value, "", ":"), forms);
    AddIfLongEnough(SeparatedHex(value, "", "-"), forms);
    AddIfLongEnough(SeparatedHex(value, "\\x", ""), forms);
  }
  for (int variant : {sodium_base64_VARIANT_ORIGINAL_NO_PADDING, sodium_base64_VARIANT_URLSAFE_NO_PADDING}) {
    for (size_t shift = 0; shift < 3; ++shift) {
      // Base64 character k holds bits 6k..6k+5 of the data: those that hold a bit of the
      // `shift` bytes before the value, or of the bytes after it, depend on other data.
      const size_t data_bytes = shift + value.size();
      const std::string encoded = Base64(std::string(shift, '\0') + std::string(value), variant);
      const size_t first = (shift * 8 + 5) / 6;
      const size_t end = data_bytes * 8 / 6;
      if (end > first) AddIfLongEnough(encoded.substr(first, end - first), forms);
    }
  }
  return forms;
}

std::vector<std::string> JsonStringForms(std::string_view value) {
  std::vector<std::string> forms;
  for (const JsonWriterEscapes& writer : kJsonWriters) {
    std::string form = Escaped(value, writer);
    if (form != value && std::find(forms.begin(), forms.end(), form) == forms.end()) {
      forms.push_back(std::move(form));
    }
  }
  return forms;
}

}  // namespace las::tools
