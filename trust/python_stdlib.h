// What a Python child runs before its pinned script, and how Las fixes it.
//
// CPython finds its standard library and native modules from where its executable is: it
// walks up from the executable's directory (links chased) for `lib/pythonX.Y/os.py` — or
// `os.pyc`, or `lib/pythonXY.zip` — and `lib-dynload`, or starts from a virtual
// environment's pyvenv.cfg `home` (its key in any case). A copy of /usr/bin/python3 in a
// workspace would therefore run whatever library the first such directory above it holds
// — none of it pinned, and under /tmp any local user could make one (probes GD1, GE1-GE4).
// Rather than foresee every landmark, Las starts every Python child with PYTHONHOME set to
// the system Python's prefix, which CPython takes over any search. What PYTHONHOME does
// not override is refused: a `._pth` file beside the executable (it replaces sys.path), a
// build tree's `pybuilddir.txt`, and a pyvenv.cfg that is no regular file (a FIFO would
// hold the launch). A `#!` line's Python is held to its own rule (trust/shebang.h: named
// in /usr/bin or /bin as written).
//
// Thread safety: free functions; they read the file system.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace las::trust {

// The pyvenv.cfg CPython reads for the Python `command` (argv[0]): beside it or one
// directory up, the command lexically normal (`./`, `..` resolved, links not chased); the
// first that exists, of any kind; nullopt when there is none.
std::optional<std::string> VirtualEnvConfig(const std::string& command);

// The system Python's prefix ("/usr" for /usr/bin/python3 -> /usr/bin/python3.11), the
// PYTHONHOME a Python child gets; "" when /usr/bin/python3 is missing.
std::string SystemPythonHome();

// Why the Python at `command` (as argv[0] names it; `resolved`: the file it is, links
// chased) would run code beside it that PYTHONHOME does not stop, in a sentence naming the
// file; nullopt when nothing is there. A pyvenv.cfg (beside the command or one directory
// up, the command read as CPython reads argv[0]: `./` and `..` resolved, links not chased)
// must be a regular file; the environment it makes is rooted at the directory above the
// command's, which must lie inside `workspace` (resolved), else its site-packages come from
// outside it (probes GG2, GI1, GI3); and its `home` (any case) must be the system Python's
// directory, else the venv was made by another Python, whose library PYTHONHOME replaces
// (probe GG5).
std::optional<std::string> UnpinnedPythonStartup(const std::string& command, const std::string& resolved,
                                                 const std::string& workspace);

// Whether `resolved` is the system Python's own file (/usr/bin/python3, links chased).
bool IsSystemPython(const std::string& resolved);

// Whether the options before the script (`argv[1..script_index)`, as ScriptOperandIndex
// admitted them) hold -E or -I, with which CPython ignores PYTHONHOME: allowed for the
// system Python, whose own search finds its own library, not for a copy (probe GE).
bool IgnoresPythonHome(const std::vector<std::string>& argv, size_t script_index);

}  // namespace las::trust
