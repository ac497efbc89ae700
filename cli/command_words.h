// The running command's words without its flags — "inspect calls", "release sign",
// "rules" — as every line `las` writes on stderr names it: "las inspect calls: not_found:
// ..." (docs/CLI.md, Exit codes). One source for every verb and sub-command, taken from
// what CLI11 parsed, so no error path names its command by hand (and none can drop a
// sub-command). Thread-compatible: main sets the words once, before any verb runs.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace las::cli {

// The names of the sub-commands parsed under `root`, innermost last, joined by spaces
// ("release sign"); "" when none was parsed. Also valid after a parse error: the
// sub-commands parsed before it.
std::string ParsedCommandWords(const CLI::App& root);

// Records the running command's words (ParsedCommandWords of the root, once parsing is
// complete).
void SetCommandWords(std::string words);

// The words recorded by SetCommandWords, for "las %s: ..."; "" before any were set.
// Borrowed until the next SetCommandWords.
const char* CommandWords();

}  // namespace las::cli
