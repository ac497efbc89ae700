// JSON on stdout for `--json` output: indented by 2, one document per line group; text
// that is not valid UTF-8 is replaced (U+FFFD), never a throw.
#pragma once

#include <cstdio>
#include <nlohmann/json_fwd.hpp>

#include "base/json_text_dump.h"

namespace las::cli {

// The default lets a braced object literal (`PrintJson({{"keys", keys}})`) be an ordered_json.
template <typename Json = nlohmann::ordered_json>
void PrintJson(const Json& json) {
  std::printf("%s\n", DumpJson(json, 2).c_str());
}

}  // namespace las::cli
