// Quoting a word for a command that Las prints for an operator to paste into a shell.
//
// Thread safety: a pure function.
#pragma once

#include <string>

namespace las {

// `text` as one word a POSIX shell reads back unchanged: as is when it holds only letters,
// digits and "/._-+,:@%=", else in single quotes (each ' as '\''), so that a printed
// command pasted into a shell does not split a path at a space or run its `$(...)` (probe
// CI7). Terminal escapes are the caller's (base/printable_text.h).
std::string ShellWord(const std::string& text);

}  // namespace las
