// Where a Python interpreter that is not the system's own file takes its standard library.
//
// CPython finds its prefix from where its executable is: a virtual environment's pyvenv.cfg
// (beside the command, or one directory up) names the `home` to start from; otherwise it
// starts in the directory of the executable, symbolic links chased, and walks up to `/`
// until a directory holds `lib/pythonX.Y/os.py` (the standard library) — and, separately,
// `lib/pythonX.Y/lib-dynload` (its native modules); a `pybuilddir.txt` there means a build
// tree. A copy of /usr/bin/python3 in a workspace therefore runs whatever standard library
// the first such directory above it holds, before the pinned script: none of it pinned, and
// under /tmp any local user could make one (probe GD1). The system interpreter itself (a
// root-owned /usr/bin) finds /usr/lib/pythonX.Y.
//
// Thread safety: a free function; it reads the file system.
#pragma once

#include <optional>
#include <string>

namespace las::trust {

// Why the Python at `command` (as argv[0] names it; `resolved`: the file it is, links
// chased) would not run the system's standard library and native modules — the directory
// it would take them from instead, in a sentence — or nullopt when it runs the system's
// (or no system Python is found to compare with).
std::optional<std::string> ForeignPythonLibrary(const std::string& command, const std::string& resolved);

}  // namespace las::trust
