// Where `las` keeps its state by default (XDG Base Directory): the log lives in
// $XDG_STATE_HOME/las/log, else ~/.local/state/las/log.
#pragma once

#include <string>

namespace las::cli {

std::string DefaultLogDir();

}  // namespace las::cli
