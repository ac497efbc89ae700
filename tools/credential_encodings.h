// The spellings a credential takes when it is part of the bytes an encoder writes out:
// hex, and base64 (standard and URL-safe) for each of the three places its first byte can
// fall in a 3-byte group, each cut to the characters that depend on the credential's bytes
// alone. So they are found inside the encoding of longer data too: an echoed
// "Authorization: Basic" header (base64 of user:password) carries the password. A form
// shorter than kMinEncodedFormChars is left out: it would match by chance.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace las::tools {

inline constexpr size_t kMinEncodedFormChars = 10;

std::vector<std::string> EncodedForms(std::string_view value);

// The bytes `value` takes inside a JSON string as common writers write it, where they
// differ from `value`: '"', '\' and control characters escaped; besides that, '/' as "\/"
// (PHP), characters beyond ASCII as \u00e4 (Python, PHP) or \u00E4 (Jackson), "<>&" as
// \u003c (Go), and .NET's escapes (\u002B for '+', \u0022 for '"', ...). Encoded in turn
// (base64 of JSON text), such bytes no longer hold the value's own EncodedForms (probes
// GK3, GM2).
std::vector<std::string> JsonStringForms(std::string_view value);

}  // namespace las::tools
