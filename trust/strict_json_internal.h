// Internal to trust/: strict parsing into an nlohmann::json value, for .cc files that
// need the parsed tree (manifest parser, canonicalizer). Public headers never include
// this file, so nlohmann/json.hpp stays out of every other module's compile.
//
// Objects in the returned value are std::map-backed (keys in byte order); callers that
// need another order (JCS) sort themselves.
#pragma once

#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "trust/reason.h"
#include "trust/strict_json.h"

namespace las::trust::internal {

using Json = nlohmann::json;

// The type names nlohmann's SAX interface asks of a handler (Json::sax_parse).
struct SaxHandlerTypes {
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;
};

// Whether the JSON number token `text`, which nlohmann read as the double `v`, names
// another value than `v` does: "10.0000000000000001" (read as 10), "1e-400" (read as 0).
// valijson compares only `v`, so such a number is not compared exactly with a schema's
// numbers. A token equal to the shortest form of its double ("0.1", "1.50", "-0.0") does
// not count: its double is the value every JSON reader takes it for. An integer written
// without a fraction or exponent counts unless the double is exactly that integer
// (100000000000000000000000 counts: the double is 99999999999999991611392).
bool LosesPrecisionAsDouble(double v, std::string_view text);

// Whether a double holds the integer `v` exactly: every integer up to 2^53 in magnitude,
// and beyond that only some (2^63 yes, 9007199254740993 and 2^63-1 no).
template <typename Int>
bool DoubleHoldsExactly(Int v) {
  // Every int64_t, uint64_t and double converts to a long double exactly (x86-64's 80-bit
  // format has a 64-bit significand).
  static_assert(std::numeric_limits<long double>::digits >= 64);
  return static_cast<long double>(static_cast<double>(v)) == static_cast<long double>(v);
}

// The value of `text` if it is strict JSON (trust/strict_json.h), else InvalidArgument.
// Never throws. With `lost_precision`, the path (object keys and array indices, from the
// root) of every number whose double names another value than its text
// (LosesPrecisionAsDouble) is appended there. With `inexact_integers`, the path of every
// number written as an integer (no fraction, no exponent) that a double does not hold
// exactly, whether nlohmann keeps it as a 64-bit integer (9007199254740993) or not
// (100000000000000000000000): RFC 8785 (JCS, trust/canonical_json.h) reads such a number
// as another one, its nearest double.
using JsonPath = std::vector<std::string>;
Result<Json> ParseStrictJson(std::string_view text, const StrictJsonLimits& limits = {},
                             std::vector<JsonPath>* lost_precision = nullptr,
                             std::vector<JsonPath>* inexact_integers = nullptr);

// A small strict-JSON document of trust/ (trust store, watermark): parsed within
// `max_bytes` and depth 4, then handed to `parse_value`. Any failure is `invalid` with
// "<what>: <why>". `parse_value` may throw only through a bug in its own checks.
template <typename T, typename ParseValue>
VerdictOr<T> ParseStrictDocument(std::string_view bytes, size_t max_bytes, Reason invalid,
                                 std::string_view what, ParseValue parse_value) {
  StrictJsonLimits limits;
  limits.max_bytes = max_bytes;
  limits.max_depth = 4;
  Result<Json> root = ParseStrictJson(bytes, limits);
  if (!root.ok()) return Reject(invalid, std::string(what) + ": " + root.status().message());
  try {
    return parse_value(*root);
  } catch (const std::exception& ex) {
    return Reject(invalid, std::string(what) + ": " + ex.what());
  }
}

}  // namespace las::trust::internal
