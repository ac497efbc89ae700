// Unpredictable identifiers (session ids, call ids): a prefix and 16 random bytes in hex,
// from libsodium's CSPRNG. Injected where used (as a std::function) so tests can fix them.
#pragma once

#include <string>
#include <string_view>

namespace las::tools {

std::string RandomId(std::string_view prefix);

}  // namespace las::tools
