// Notes on stderr from library code, named as every line the running program writes there
// names it: "las serve: surface weles left out (...)" (docs/CLI.md). The program sets the
// name once it knows its command (cli/command_words.h); until then it is "las".
// Thread-safe: a note is one write, so notes of several threads never interleave within a
// line. The name is set before any thread that notes starts.
#pragma once

#include <string>

namespace las {

void SetNoteName(std::string name);
std::string NoteName();

// Writes "<name>: " and `format` (printf-style; it ends with its own "\n") to stderr.
void Note(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace las
