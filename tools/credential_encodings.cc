#include "tools/credential_encodings.h"

#include <sodium.h>

#include <algorithm>
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

}  // namespace

std::vector<std::string> EncodedForms(std::string_view value) {
  std::vector<std::string> forms;
  AddIfLongEnough(Hex(value), forms);
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
  auto escaped = [value](bool slash, bool ascii) {
    std::string out;
    auto unit = [&out](char32_t code_unit) {
      char text[7];
      std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(code_unit));
      out += text;
    };
    for (size_t i = 0; i < value.size();) {
      const unsigned char byte = static_cast<unsigned char>(value[i]);
      if (byte >= 0x80 && ascii) {
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
      const char* short_escape = nullptr;
      switch (byte) {
        case '"': short_escape = "\\\""; break;
        case '\\': short_escape = "\\\\"; break;
        case '\b': short_escape = "\\b"; break;
        case '\f': short_escape = "\\f"; break;
        case '\n': short_escape = "\\n"; break;
        case '\r': short_escape = "\\r"; break;
        case '\t': short_escape = "\\t"; break;
        case '/': short_escape = slash ? "\\/" : nullptr; break;
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
  };
  std::vector<std::string> forms;
  for (const bool slash : {false, true}) {
    for (const bool ascii : {false, true}) {
      std::string form = escaped(slash, ascii);
      if (form != value && std::find(forms.begin(), forms.end(), form) == forms.end()) {
        forms.push_back(std::move(form));
      }
    }
  }
  return forms;
}

}  // namespace las::tools
