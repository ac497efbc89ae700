// Internal to trust/: strict parsing into an nlohmann::json value, for .cc files that
// need the parsed tree (manifest parser, canonicalizer). Public headers never include
// this file, so nlohmann/json.hpp stays out of every other module's compile.
//
// Objects in the returned value are std::map-backed (keys in byte order); callers that
// need another order (JCS) sort themselves.
#pragma once

#include <string_view>

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

// The value of `text` if it is strict JSON (trust/strict_json.h), else InvalidArgument.
// Never throws.
Result<Json> ParseStrictJson(std::string_view text, const StrictJsonLimits& limits = {});

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
