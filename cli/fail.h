// Reporting a failed command: "las WORDS: CODE: message" on stderr, and the exit code for
// the status (cli/exit_codes.h). For the verbs' error paths; thread-compatible (stdio).
#pragma once

#include <cstdio>
#include <string>

#include "base/printable_text.h"
#include "base/status.h"
#include "cli/command_words.h"
#include "cli/exit_codes.h"

namespace las::cli {

// `status` as stderr may show it: messages carry operator-given paths and names, which may
// hold line breaks or terminal escapes (base/printable_text.h).
// A message quoting a huge value is shortened in its middle (EscapeAndShorten).
inline std::string Shown(const Status& status) { return EscapeAndShorten(status.ToString()); }

// Prints "las WORDS: <status>" on stderr, WORDS the running command's (cli/command_words.h);
// returns ExitCodeFor(status).
inline int Fail(const Status& status) {
  std::fprintf(stderr, "las %s: %s\n", CommandWords(), Shown(status).c_str());
  return ExitCodeFor(status);
}

}  // namespace las::cli
