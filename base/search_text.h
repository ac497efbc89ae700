// Case folding and word splitting for text search, for every script (probe FC2: searching
// "CAFÉ" missed "café", and "alpha—beta" was one word because every non-ASCII byte counted
// as a letter).
//
// The character classes and lower-case mappings are glibc's C.UTF-8 tables (always present
// on Debian: package libc-bin), used through a locale object of their own, never the
// process's global locale. Were that locale missing, both functions fall back to ASCII rules
// (ASCII letters folded; every non-ASCII byte a letter), as before.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace las {

// `text` with every letter lower-cased (one code point to one, e.g. 'É' → 'é', 'İ' → 'i';
// 'ß' stays; the final 'ς' becomes 'σ'). No normalization: a precomposed 'é' and 'e' with
// U+0301 stay different, as do fullwidth and ASCII letters. Bytes that are not well-formed
// UTF-8 are copied as they are.
std::string FoldCase(std::string_view text);

// The words of `text`: maximal runs of letters and digits of any script, combining marks
// included (so a decomposed "é" stays in its word). Everything else separates — ASCII
// punctuation and '_', spaces including U+00A0 and U+3000, dashes, quotes, CJK and fullwidth
// punctuation, symbols and emoji. Bytes that are not well-formed UTF-8 count as letters. The
// views point into `text`.
std::vector<std::string_view> SearchWords(std::string_view text);

}  // namespace las
