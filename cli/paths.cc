#include "cli/paths.h"

#include <cstdlib>

#include "base/home_directory.h"
#include "tools/snapshot_key_file.h"

namespace las::cli {

namespace {

std::string Home() {
  const char* home = std::getenv("HOME");
  return HomeDirectory(home == nullptr ? "" : home);
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
