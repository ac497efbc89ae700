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
#include "trust/strict_json.h"

namespace las::trust::internal {

using Json = nlohmann::json;

// The value of `text` if it is strict JSON (trust/strict_json.h), else InvalidArgument.
// Never throws.
Result<Json> ParseStrictJson(std::string_view text, const StrictJsonLimits& limits = {});

}  // namespace las::trust::internal
