#include "cli/paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "tools/snapshot_key_file.h"

namespace las::cli {

namespace {

// "" when there is none: no absolute HOME and no passwd entry with an absolute home.
std::string Home() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return home;
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr &&
                                                  pw->pw_dir[0] == '/') {
    return pw->pw_dir;
  }
  return "";
}

}  // namespace

std::string DefaultLogDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
    return std::string(state) + "/las/log";
  }
  const std::string home = Home();
  // Not "/.local/state/las/log" at the root of the file system (probe AU9): no default.
  return home.empty() ? "" : home + "/.local/state/las/log";
}

std::string DefaultSnapshotKeyFile() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  return tools::DefaultSnapshotKeyFile(config == nullptr ? "" : config, Home());
}

}  // namespace las::cli
