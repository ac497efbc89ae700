// JSON Schema `pattern` with code-point semantics on std::regex, which matches bytes.
//
// A `pattern` is an ECMA-262 regular expression over characters; valijson hands it to
// std::regex, which reads both pattern and subject as bytes of UTF-8. Byte by byte, "é"
// is two characters ("^.$" refused it, "^.{2}$" accepted it) and a class with non-ASCII
// members becomes a set of bytes ("[À-ÖØ-öø-ÿ]" admitted "×", the character it leaves out).
//
// TranslatePatternToUtf8 rewrites the pattern so that std::regex (ECMAScript grammar), run
// on the UTF-8 bytes of a subject, matches exactly what the pattern matches on the
// subject's code points: every atom that can match a non-ASCII character — `.`, a class,
// `\D` `\W` `\s` `\S`, a non-ASCII literal or `\x`/`\u` escape — becomes a group of whole
// UTF-8 sequences, so quantifiers count characters. The rest (anchors, groups, ASCII
// literals and escapes, `\d` `\w` `\b`, back-references, quantifiers) is kept as written.
// Semantics are those of a `u`-flag ECMAScript regex (code points, as JSON Schema
// validators built on one do), with ECMAScript's `\s` (Unicode white space) and `.` (any
// code point but \n, \r, U+2028 and U+2029).
//
// Escapes: `\d \w \b \B \t \n \v \f \r` and back-references are kept; `\D \W \s \S`,
// `\xHH`, `\uHHHH`, `\0`, `\cX` and an escaped punctuation mark become what they match.
// An escaped letter, digit or `_` with no u-flag ECMAScript meaning (`\z`, `\A`, `\pL`,
// `\Q`, ...; in a class also `[\q]`, `[\B]`, `[\_]`) is refused: std::regex reads it as the
// letter, RE2 as something else, a u-flag pattern as an error.
//
// Errors (naming the reason, never quoting the pattern). InvalidArgument: the pattern is
// not valid UTF-8; a class is not closed; a range is reversed; a `\u` escape names a lone
// surrogate (no UTF-8 subject holds one); an escape as above. Unsupported ("valid in a
// u-flag ECMAScript pattern but not supported by Las"): `\p{..}`, `\P{..}`, `\u{..}`,
// `\k<name>`, a named group `(?<name>`, look-behind `(?<=` `(?<!`. Syntax std::regex
// itself refuses is kept as written for std::regex to refuse.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace las::trust {

// What the translation is for. kStdRegexUtf8Bytes: std::regex (ECMAScript grammar) over a
// subject's UTF-8 bytes, each non-ASCII atom a group of byte sequences. kRe2CodePoints:
// RE2 in its UTF-8 mode, each such atom a class of code points (`[\x{E9}]`).
enum class PatternTarget { kStdRegexUtf8Bytes, kRe2CodePoints };

Result<std::string> TranslatePattern(std::string_view pattern, PatternTarget target);

// TranslatePattern(pattern, kStdRegexUtf8Bytes).
Result<std::string> TranslatePatternToUtf8(std::string_view pattern);

}  // namespace las::trust
