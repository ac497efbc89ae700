// The user's home directory as Las's defaults use it (the log, the snapshot key, the policy
// files under ~/.config/las): one rule for all, so that no default is found in one home
// and another in a different one (probe CO2: the log fell back to the passwd entry's home
// while the Tama/Warsztat allowlists were not looked for there).
//
// Thread safety: getpwuid_r; callable from any thread.
#pragma once

#include <string>
#include <string_view>

namespace las {

// `home_variable` (the value of HOME) when it is an absolute path, else the passwd entry's
// home of the real user when that is absolute, else "" (no home: no default under it).
std::string HomeDirectory(std::string_view home_variable);

}  // namespace las
