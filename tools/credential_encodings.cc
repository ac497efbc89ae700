#include "tools/credential_encodings.h"

#include <sodium.h>

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

}  // namespace las::tools
