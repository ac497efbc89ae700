// DumpJson: the JSON text of an nlohmann value in which a string that is not valid UTF-8 —
// a path from the environment, an operator's argument, bytes a log holds — is written with
// U+FFFD in its place, instead of nlohmann's default, a type_error thrown (probe EW: an
// onboarding check of a non-UTF-8 path aborted the server, an operator verb given a
// non-UTF-8 id aborted the CLI). Use it for every dump whose strings Las did not just parse.
// Header-only and free of nlohmann includes: the caller has them already.
#pragma once

#include <string>

namespace las {

template <typename Json>
std::string DumpJson(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace las
