// RFC 8785 JSON Canonicalization Scheme (JCS): one byte string per JSON value, so that
// digests of JSON (tool input schemas, descriptions) do not depend on whitespace, key
// order, escapes or number spelling.
//
//   - object members sorted by their keys' UTF-16 code units (not UTF-8 bytes, not
//     locale), no whitespace anywhere;
//   - strings escaped as ECMAScript JSON.stringify does: \" \\ \b \f \n \r \t, other
//     controls below U+0020 as \u00xx (lowercase hex), everything else literal UTF-8;
//   - every number is an IEEE-754 double printed as ECMAScript Number.prototype.toString
//     (shortest round-trip digits; 1e+21 and above and below 1e-6 in exponent form;
//     -0 prints as 0). Integers beyond 2^53 therefore lose precision exactly as they do
//     in every JavaScript consumer: 9007199254740993 canonicalizes to 9007199254740992.
//
// The input must be strict JSON (trust/strict_json.h): RFC 8785 requires I-JSON, and a
// duplicate key would make "the" canonical form ambiguous.
//
// Errors: InvalidArgument for input that is not strict JSON or not representable.
// Thread safety: free functions with no shared state.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "trust/strict_json.h"

namespace las::trust {

// The JCS form of the JSON text `json_text`.
Result<std::string> CanonicalizeJson(std::string_view json_text,
                                     const StrictJsonLimits& limits = {});

// `value` as ECMAScript Number.prototype.toString prints it ("1e+21", "5e-324", "0" for
// -0). InvalidArgument for NaN and infinities, which JSON cannot carry.
Result<std::string> FormatJcsNumber(double value);

}  // namespace las::trust
