#include "cli/paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace las::cli {

std::string DefaultLogDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
    return std::string(state) + "/las/log";
  }
  std::string home;
  if (const char* env_home = std::getenv("HOME"); env_home != nullptr && env_home[0] == '/') {
    home = env_home;
  } else if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr) {
    home = pw->pw_dir;
  }
  return home + "/.local/state/las/log";
}

}  // namespace las::cli
