// Mutated JSON texts and nlohmann's verdict on them, for differential tests of Las's own
// JSON readers (transport's scanner and JSON-RPC parser, reducers' values, trust's strict
// JSON and canonical form).
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace las::testing {

// `text` with one to three random edits: a byte replaced or inserted (from JSON's
// punctuation, digits, escape letters, and bytes that break UTF-8), a byte removed, a
// short span repeated elsewhere, or the tail cut.
std::string MutateJsonText(std::string text, std::mt19937_64& rng);

// Containers open at once in a well-formed JSON text (strings skipped).
size_t JsonDepth(std::string_view text);

// nlohmann's verdict on one JSON text, corrected for its rules that are not JSON's: it
// stops at a NUL byte as if the text ended there and skips a leading byte-order mark (a
// raw NUL is never valid JSON, and Las's readers refuse a BOM), and it refuses a number
// too large for a double, which the grammar allows (kUnknown: the caller decides).
enum class JsonReference { kValid, kInvalid, kUnknown };
JsonReference NlohmannVerdict(std::string_view text);

// Whether any object of a text nlohmann accepts repeats a key (nlohmann keeps the last).
bool HasRepeatedKey(std::string_view text);

}  // namespace las::testing
