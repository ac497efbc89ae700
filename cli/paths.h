// Where `las` keeps its files by default (XDG Base Directory): the log lives in
// $XDG_STATE_HOME/las/log, else ~/.local/state/las/log; the snapshot key in
// $XDG_CONFIG_HOME/las/snapshot.key, else ~/.config/las/snapshot.key.
#pragma once

#include <string>

namespace las::cli {

std::string DefaultLogDir();
std::string DefaultSnapshotKeyFile();

}  // namespace las::cli
