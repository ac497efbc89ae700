#include "trust/environment.h"

#include <unistd.h>

#include <string_view>

namespace las::trust {

Environment EnvironmentFromProcess() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

}  // namespace las::trust
