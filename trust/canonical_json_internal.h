// Internal to trust/: JCS of an already-parsed nlohmann::json value.
#pragma once

#include <string>

#include "base/result.h"
#include "trust/strict_json_internal.h"

namespace las::trust::internal {

// InvalidArgument if the value holds a non-finite number, a string that is not valid
// UTF-8, or a binary/discarded node (none of which strict parsing produces).
Result<std::string> CanonicalJsonOf(const Json& value);

}  // namespace las::trust::internal
