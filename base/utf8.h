// UTF-8 (RFC 3629) primitives shared by the modules that read text character by character.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace las {

// The code point of the well-formed sequence at text[*pos], advancing *pos past it; nullopt
// for an ill-formed one (overlong, surrogate, above U+10FFFF, cut short), *pos unchanged.
// Requires *pos < text.size().
std::optional<char32_t> DecodeUtf8(std::string_view text, size_t* pos);

// The characters of well-formed UTF-8: the bytes that do not continue a sequence.
size_t CountCodePoints(std::string_view text);

// The longest prefix of `text` of at most `max_bytes` that does not end inside a sequence
// (a continuation byte is never the prefix's first byte after the cut).
std::string_view Utf8PrefixOfAtMost(std::string_view text, size_t max_bytes);

// Appends `code_point` (at most U+10FFFF) to `out` as UTF-8. A surrogate is written as the
// three bytes it would take (what a lone \uD800 escape decodes to in a lenient reader).
void AppendUtf8(char32_t code_point, std::string& out);

}  // namespace las
