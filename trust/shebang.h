// The `#!` line of a script command, held to the rules of a command line.
//
// A script command's bytes are pinned, its `#!` line included, but the program that line
// names runs it, with the line's arguments: an interpreter inside the workspace is code the
// release does not pin (only the script is hashed), and an interpreter's options or `env`
// assignments can load other code — `#!/usr/bin/python3 -mmod` runs a module of the
// workspace, `#!/usr/bin/env -S PYTHONPATH=dir python3` imports from `dir` (probe CX2).
//
// ParseShebang reads the line as Linux does: the program, then everything after it (blanks
// trimmed) as one argument. CheckShebang then refuses, as kCodeNotPinned:
//   - a line with no end in the 256 bytes Linux reads, or holding a control character
//     other than tab (a CR line end: what runs then depends on readings that differ);
//   - a relative program (it resolves against whatever the cwd is), and one whose resolved
//     path is inside the workspace;
//   - for env (/usr/bin/env or a copy of it): an -S string holding quotes, backslashes, `$`
//     or `#` (GNU env would unquote, unescape, expand or end there, and read another
//     program or option than this reading: probes CZ F2, DD4), an option other than
//     -S/--split-string (first) and `--` (-i and -u would drop PYTHONNOUSERSITE: probe DD3),
//     an assignment of PATH, HOME, PYTHONNOUSERSITE or a variable that loads code
//     (EnvironmentLoadsCode), a program not found in kChildPath or inside the workspace, or
//     env again;
//   - a program that is not a shell of the system (a file of /usr/bin or /bin named sh,
//     bash, dash, zsh, ksh, mksh or ash), /usr/bin/python3 or the configured Node (resolved,
//     or a copy by its bytes) — known by the file, never by name: a wrapper (`nice ./x`), a
//     script-interpreter (`pdb3`) or a pyenv shim runs what Las cannot read (probes DD1,
//     DD2, DE1);
//   - a shell given anything but -e, -f, -u, -v, -x and `-o OPTION` (an operand, -s, -c, -i,
//     -l: probe DE2);
//   - Python named anywhere but /usr/bin or /bin as written (through env too): a copy, a
//     venv's interpreter or a link to /usr/bin elsewhere finds its library, or a venv's,
//     around that name (probes GG1, GI2);
//   - Python or Node given arguments that run anything but the script itself: the script
//     must be the operand ScriptOperandIndex finds after them.
// A `#!` program that does not exist is accepted here: the exec fails, running nothing.
// Shells pass (their scripts are noted at draft: tools/unpinned_code.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trust/reason.h"

namespace las::trust {

// How many bytes of a file Linux reads for its `#!` line.
inline constexpr size_t kShebangBytes = 256;

struct Shebang {
  std::string program;                 // as written
  std::vector<std::string> arguments;  // as the program receives them (at most one)
  bool cut = false;                    // no line end in the bytes Linux reads
};

// The `#!` line at the start of `head` (a file's first kShebangBytes bytes, or all of a
// shorter file), or nullopt when there is none.
std::optional<Shebang> ParseShebang(std::string_view head);

// Accept, or kCodeNotPinned naming what the line would run that the release does not pin.
// `workspace` is resolved (realpath); `node_executable` the configured Node ("" for none);
// `who` prefixes the detail ("surface x: ").
Verdict CheckShebang(const Shebang& shebang, std::string_view workspace,
                     std::string_view node_executable, std::string_view who);

}  // namespace las::trust
