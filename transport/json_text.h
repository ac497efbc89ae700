// Raw JSON text: validate it and slice it without building a tree.
//
// Transport passes JSON up as the exact bytes a peer sent (ids are echoed byte for byte,
// a tool's `result` reaches tools/ unchanged). These helpers check that a text is one
// well-formed JSON value under bounds and hand out views of its top-level pieces.
//
// Grammar: RFC 8259, plus: the whole text is well-formed UTF-8 (RFC 3629: no overlong
// forms, no encoded surrogates, nothing above U+10FFFF); `\u` escapes pair surrogates
// correctly; containers nest at most `max_depth` deep (1 admits `[1]`, rejects `[[1]]`).
// Duplicate keys are rejected only on request (DuplicateKeys::kRejected: a child's result,
// which readers keeping the first or the last of two equal keys would see differently);
// jsonrpc.h rejects duplicates of the members it reads; trust/strict_json.h is the strict
// reader for signed data.
//
// Errors: a JsonTextError value, never an exception. Views point into the caller's text
// and live as long as it does.
// Thread safety: free functions with no shared state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace las::transport {

enum class JsonTextError {
  kNone = 0,
  kSyntax = 1,       // not RFC 8259 JSON (or trailing bytes after the value)
  kTooDeep = 2,      // more than max_depth containers open at once
  kInvalidUtf8 = 3,  // ill-formed UTF-8 or a lone surrogate escape
  kDuplicateKey = 4, // an object repeats a key (decoded), with DuplicateKeys::kRejected
};
// Stable lowercase name: "syntax", "too_deep", "invalid_utf8", "duplicate_key", "none".
std::string_view JsonTextErrorName(JsonTextError error);

enum class JsonType { kNull, kBool, kNumber, kString, kArray, kObject };

struct JsonMember {
  std::string key;       // decoded
  std::string_view raw;  // the value's exact text
  JsonType type;
};

inline constexpr size_t kDefaultMaxDepth = 64;

// kNone if `text` (surrounding whitespace allowed) is exactly one JSON value.
JsonTextError ValidateJson(std::string_view text, size_t max_depth = kDefaultMaxDepth);

enum class DuplicateKeys { kAllowed, kRejected };

// Validates `text` like ValidateJson and, if it is an object, fills `members` with its
// top-level members in order. Returns kSyntax for a valid non-object too; `*is_object`
// (if given) tells the two apart. With DuplicateKeys::kRejected, an object anywhere in
// `text` that repeats a key (compared decoded: "a" and "\u0061" are equal) is
// kDuplicateKey.
JsonTextError ObjectMembers(std::string_view text, std::vector<JsonMember>* members,
                            size_t max_depth = kDefaultMaxDepth, bool* is_object = nullptr,
                            DuplicateKeys duplicates = DuplicateKeys::kAllowed);

// Validates `text` and, if it is an array, fills `elements` with the raw text of each
// element. Returns kSyntax for anything but a valid array.
JsonTextError ArrayElements(std::string_view text, std::vector<std::string_view>* elements,
                            size_t max_depth = kDefaultMaxDepth);

// The decoded content of a raw JSON string token (quotes included), or nullopt if it is
// not one valid string token.
std::optional<std::string> DecodeJsonString(std::string_view raw);

// `value` as a JSON string token: quotes, escapes for '"', '\\' and control characters.
// `value` must be valid UTF-8 (bytes are copied as they are).
std::string QuoteJsonString(std::string_view value);

// Type of a raw JSON value from its first byte; the text must already be validated.
JsonType JsonTypeOf(std::string_view raw);

// Best effort on a prefix of a JSON text that was cut off (an over-long line), or on a
// whole text that failed to parse: scans the top-level object's members in order and
// returns the raw text of member `key` if it is a well-formed string or number that lies
// entirely inside the text. The members before it are skipped by their shape only (no
// depth bound, escapes and UTF-8 unchecked), so one nested too deep or holding a lone
// surrogate escape does not hide an id after it; a member cut off or broken in its shape
// ends the scan.
std::optional<std::string> SalvageTopLevelMember(std::string_view prefix, std::string_view key,
                                                 size_t max_depth = kDefaultMaxDepth);

// The raw text of each element of the array `text` begins with, as far as their shape can
// be read (SalvageTopLevelMember's walk, for an array): for a batch line that is invalid
// JSON because one element nests too deep or holds a lone surrogate escape, so that the
// requests beside it can still be answered. An element cut off or broken in its shape ends
// the list. Empty when `text` does not begin with '['.
std::vector<std::string_view> SalvageArrayElements(std::string_view text);

// Whether the object `prefix` begins with shows a top-level member named `key` (its value
// complete or not), walking its members as SalvageTopLevelMember does: for telling what a
// line that cannot be parsed is (a response has `result` or `error`; a request or
// notification `method` and `params`).
bool ShowsTopLevelMember(std::string_view prefix, std::string_view key);

// Whether it shows `key` twice or more (compared decoded), walking the same way: for a
// line whose id cannot be told (probe HP1).
bool ShowsTopLevelMemberTwice(std::string_view prefix, std::string_view key);

// Best effort on the last bytes of a JSON text whose start was cut off (an over-long
// line): if the text ends with the top-level object's member `key` whose value is a
// number or a well-formed string (`,"key":42}`, `,"key":"a"}`), returns that value's raw
// text. In a valid JSON text that ending can only be a top-level member: the final '}'
// closes the outermost object. `key` must need no escaping.
std::optional<std::string> SalvageTrailingMember(std::string_view suffix, std::string_view key);

// `line` without a leading UTF-8 byte order mark, as some tools write before their first
// line: RFC 8259 lets a JSON reader ignore one, so every reader of client lines does.
std::string_view WithoutByteOrderMark(std::string_view line);

// Byte offset of the first ill-formed UTF-8 sequence, or nullopt if none.
std::optional<size_t> FindInvalidUtf8(std::string_view bytes);

}  // namespace las::transport
