// A JSON string literal, escaped as RFC 8785 (JCS) prescribes: `"` and `\` escaped, the
// control characters U+0000..U+001F as \b \f \n \r \t or \u00xx (lowercase hex), every
// other byte copied as is. The one escaping Las uses everywhere, so canonical JSON, the
// manifest writer and JSON-RPC messages agree byte for byte. The caller vouches that
// `text` is valid UTF-8 (the output is valid JSON exactly when the input is valid UTF-8).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace las {

// Appends `"text"` to `out`.
void AppendJsonString(std::string_view text, std::string& out);

// The number of bytes AppendJsonString(text, ...) appends, quotes included.
size_t JsonStringSize(std::string_view text);

// The UTF-16 code unit a `\u` escape's four hex digits (either case) at the start of
// `digits` spell; nullopt when fewer than four follow or one is not hex.
std::optional<char32_t> JsonEscapeUnit(std::string_view digits);

}  // namespace las
