// Text that reaches an operator's terminal or names an agent: well-formed UTF-8 without
// the code points that move the cursor or reorder what is shown.
//
// Unsafe code points: C0 controls and DEL (ESC starts terminal control sequences, CR and
// LF forge lines), C1 controls (U+0080..U+009F, 8-bit CSI), the line and paragraph
// separators (U+2028, U+2029), and every code point that displays as nothing: Unicode's
// Default_Ignorable_Code_Point set (soft hyphen, zero-width and joiner characters,
// variation selectors, tags, ...; it holds every bidirectional control, such as U+061C,
// U+200E and U+202A..U+202E, which make text display in another order than it is stored)
// and the interlinear annotation controls U+FFF9..U+FFFB. Such characters would let two
// different ids look the same.
//
// Thread safety: pure functions (DisplayWidth sets and restores its thread's locale).
#pragma once

#include <string>
#include <string_view>

namespace las {

// Well-formed UTF-8 (RFC 3629) holding no unsafe code point.
bool IsPrintableText(std::string_view text);

// `text` as it may be shown: an ill-formed byte becomes \xNN, an unsafe code point \u{XXXX}
// (a backslash stays a backslash: the result is for eyes, not for parsing back).
std::string EscapeForTerminal(std::string_view text);

// EscapeForTerminal(text), and when that is longer than `max_bytes`, its start and its end
// (about two thirds and one third of `max_bytes`, cut between characters) around
// " ... (N bytes left out) ... ": an error line that quotes a 100 KB flag value still says
// what was wrong and what to do, in a line a terminal shows (probe IZ1).
inline constexpr size_t kMaxShownBytes = 2000;
std::string EscapeAndShorten(std::string_view text, size_t max_bytes = kMaxShownBytes);

// A value someone gave (a flag, an id, a name), as a refusal quotes it: between double
// quotes, EscapeAndShorten to kMaxQuotedBytes.
inline constexpr size_t kMaxQuotedBytes = 300;
std::string QuotedForTerminal(std::string_view value);

// The columns `text` (printable: as EscapeForTerminal returns it) takes on a terminal: a
// combining mark none, an East Asian wide or fullwidth character or an emoji two, any
// other character one — wcwidth under glibc's C.UTF-8, whatever the process's locale (a
// code point per column where that locale is missing; an ill-formed byte one).
size_t DisplayWidth(std::string_view text);

// JSON text (well-formed UTF-8, as a JSON serializer writes it) with every unsafe code
// point written as a \u escape (a surrogate pair above U+FFFF): the same JSON value, which
// no longer reorders or hides what a terminal shows. Unsafe code points stand only inside
// strings in JSON text, where an escape means the same character. An ill-formed byte is
// copied as it is.
std::string EscapeUnsafeInJson(std::string_view json_text);

}  // namespace las
