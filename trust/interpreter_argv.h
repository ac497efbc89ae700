// Which file an interpreter command runs: the script operand of a Python or Node argv.
//
// A release pins a surface's command by its bytes; when the command is an interpreter, what
// runs is the script it is given, so the release must pin that script (its code binding)
// and the code binding must be the file the interpreter will actually run. Options before
// the script decide that: `-m pkg` and `-c text` run something that is no file at all,
// `--require x.js` and `--import x` load other files first, `-` reads the program from
// stdin. So the script is found by a conservative reading of the interpreter's command
// line: only options known to load no code are allowed before it, and anything else is
// refused rather than guessed.
//
//   Python: clusters of the flags b B d E I O P q s S u v (`-u`, `-OO`, `-uB`; -E only with
//           -s, -I or -S: alone it ignores PYTHONNOUSERSITE); `-W` and `-X` with their value
//           (attached, `-Wignore`, or as the next argument); `--`.
//   Node:   --no-warnings, --no-deprecation, --enable-source-maps, --trace-warnings,
//           --trace-uncaught, --trace-deprecation, --preserve-symlinks,
//           --preserve-symlinks-main, --max-old-space-size=N, --stack-size=N,
//           --unhandled-rejections=MODE; `--`.
// The first argument after them is the script; it may not be `-` or empty.
//
// An interpreter command is /usr/bin/python3, the configured Node executable, any command
// whose file name is that of one (python, python3, python3.11, node, nodejs), or a file
// whose bytes are the system Python's or the configured Node's under any name: a workspace
// copy of an interpreter (a virtualenv made with --copies) runs its script the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trust/digest.h"
#include "trust/reason.h"

namespace las::trust {

inline constexpr std::string_view kSystemPython = "/usr/bin/python3";

enum class Interpreter { kNone, kPython, kNode };

// What `command` is, whose bytes are `command_size` long and hash to `command_sha256`;
// `node_executable` is the configured Node (empty: none configured). A command not named
// like an interpreter is compared by digest with an interpreter of its size (each hashed
// once per process while its file is unchanged).
Interpreter InterpreterOf(std::string_view command, uint64_t command_size,
                          const Sha256Digest& command_sha256, std::string_view node_executable);

// Whether the file at `path` holds bytes `size` long that hash to `digest`. Only a file of
// that size is hashed, once per process while it keeps its inode, size and modification
// time (Node is ~100 MB). Thread-safe.
bool SameBytesAs(const std::string& path, uint64_t size, const Sha256Digest& digest);

// The index in `argv` (argv[0] being the command) of the script `interpreter` runs, or
// kCodeNotPinned naming the first argument that stops the reading. `surface` prefixes the
// detail ("surface x: ").
VerdictOr<size_t> ScriptOperandIndex(Interpreter interpreter, const std::vector<std::string>& argv,
                                     std::string_view surface);

// Whether an environment variable named `name` makes the dynamic loader, an interpreter or
// a shell load or run code from elsewhere: LD_*; every PYTHON* but the few known inert
// (PYTHONUNBUFFERED, PYTHONIOENCODING, PYTHONUTF8, PYTHONDONTWRITEBYTECODE, PYTHONHASHSEED,
// PYTHONFAULTHANDLER, PYTHONNOUSERSITE, PYTHONSAFEPATH, PYTHONINTMAXSTRDIGITS); BASH_FUNC_*;
// OPENSSL_*; CORECLR_PROFILER*; DOTNET_ROOT*; LUA_INIT*, LUA_PATH*, LUA_CPATH*; NODE_OPTIONS, NODE_PATH, NODE_REPL_EXTERNAL_MODULE,
// BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4, PERL5LIB, PERL5OPT, PERLLIB, PERL5DB, RUBYOPT,
// RUBYLIB, GCONV_PATH, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS, CLASSPATH,
// DOTNET_STARTUP_HOOKS, DOTNET_ADDITIONAL_DEPS, DOTNET_SHARED_STORE, ZDOTDIR, PHPRC,
// PHP_INI_SCAN_DIR. A release that passes one to its child pins code that is not what runs.
bool EnvironmentLoadsCode(std::string_view name);

}  // namespace las::trust
