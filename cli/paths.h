// Where `las` keeps its files by default (XDG Base Directory): the log lives in
// $XDG_STATE_HOME/las/log, else ~/.local/state/las/log; the snapshot key in
// $XDG_CONFIG_HOME/las/snapshot.key, else ~/.config/las/snapshot.key. Without an absolute
// XDG variable and a home directory there is no default: "" (the log's open then asks for
// --log; snapshots are off).
#pragma once

#include <string>

namespace las::cli {

std::string DefaultLogDir();
std::string DefaultSnapshotKeyFile();

}  // namespace las::cli
