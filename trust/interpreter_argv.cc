#include "trust/interpreter_argv.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "base/unique_fd.h"

namespace las::trust {
namespace {

constexpr std::string_view kPythonFlags = "bBdEIOPqsSuv";
constexpr std::array<std::string_view, 7> kNodeFlags = {
    "--no-warnings",     "--no-deprecation",   "--enable-source-maps", "--trace-warnings",
    "--trace-uncaught",  "--trace-deprecation", "--preserve-symlinks"};
constexpr std::string_view kNodePreserveSymlinksMain = "--preserve-symlinks-main";
constexpr std::array<std::string_view, 3> kNodeValueOptions = {
    "--max-old-space-size=", "--stack-size=", "--unhandled-rejections="};

bool IsPythonName(std::string_view name) {
  if (name == "python" || name == "python3") return true;
  constexpr std::string_view kVersioned = "python3.";
  if (name.size() <= kVersioned.size() || name.substr(0, kVersioned.size()) != kVersioned) {
    return false;
  }
  const std::string_view minor = name.substr(kVersioned.size());
  return std::all_of(minor.begin(), minor.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsNodeFlag(std::string_view arg) {
  if (arg == kNodePreserveSymlinksMain) return true;
  if (std::find(kNodeFlags.begin(), kNodeFlags.end(), arg) != kNodeFlags.end()) return true;
  return std::any_of(kNodeValueOptions.begin(), kNodeValueOptions.end(), [arg](std::string_view option) {
    return arg.size() > option.size() && arg.substr(0, option.size()) == option;
  });
}

// The argument as it appears in a detail: quoted, and cut (an argv element can be long).
std::string Shown(std::string_view arg) {
  constexpr size_t kMaxShown = 64;
  return "\"" + std::string(arg.substr(0, kMaxShown)) + (arg.size() > kMaxShown ? "...\"" : "\"");
}

// The -X options known to load no code: the interpreter's own modes, limits and
// diagnostics. Refused: pycache_prefix (bytecode from another directory, as
// PYTHONPYCACHEPREFIX: probe AZ1), presite (imports a module by name), and any option a
// later Python adds until it is known.
constexpr std::array<std::string_view, 13> kInertPythonXOptions = {
    "dev", "utf8", "importtime", "tracemalloc", "showrefcount", "faulthandler",
    "int_max_str_digits", "warn_default_encoding", "no_debug_ranges", "frozen_modules",
    "perf", "cpu_count", "gil"};

// Whether `-W value` or `-X value` loads no code. A warning filter is
// action:message:category:module:lineno, and a dotted category is imported by its module's
// name (as PYTHONWARNINGS, refused below); -X is decided by its name.
bool PythonOptionValueLoadsNoCode(char option, std::string_view value) {
  if (option == 'W') {
    size_t field_start = 0;
    for (int field = 0; field < 2; ++field) {
      const size_t colon = value.find(':', field_start);
      if (colon == std::string_view::npos) return true;  // no category field
      field_start = colon + 1;
    }
    const std::string_view category =
        value.substr(field_start, value.find(':', field_start) - field_start);
    return category.find('.') == std::string_view::npos;
  }
  const std::string_view name = value.substr(0, value.find('='));
  return std::find(kInertPythonXOptions.begin(), kInertPythonXOptions.end(), name) !=
         kInertPythonXOptions.end();
}

// How many arguments from argv[at] one Python option takes (1 or 2), or 0 if it is not an
// option Las vouches for.
size_t PythonOptionLength(const std::vector<std::string>& argv, size_t at) {
  const std::string_view arg = argv[at];
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return 0;
  if (arg[1] == 'W' || arg[1] == 'X') {
    const bool joined = arg.size() > 2;           // -Wignore, -Xdev; or -W ignore, -X dev
    if (!joined && at + 1 >= argv.size()) return 0;
    const std::string_view value = joined ? arg.substr(2) : std::string_view(argv[at + 1]);
    if (!PythonOptionValueLoadsNoCode(arg[1], value)) return 0;
    return joined ? 1 : 2;
  }
  const std::string_view cluster = arg.substr(1);
  const bool known = std::all_of(cluster.begin(), cluster.end(),
                                 [](char c) { return kPythonFlags.find(c) != std::string_view::npos; });
  return known ? 1 : 0;
}

// Named one by one: what makes Node, a shell, Perl, Ruby, glibc's iconv, a Java or a .NET
// runtime load or run code from elsewhere. (LD_*, PYTHON*, OPENSSL_* and the rest decided
// by prefix: below.)
constexpr std::array<std::string_view, 25> kCodeLoadingVariables = {
    "NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "BASH_ENV", "ENV", "SHELLOPTS",
    "BASHOPTS", "PS4", "PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
    "GCONV_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
    "DOTNET_STARTUP_HOOKS", "DOTNET_ADDITIONAL_DEPS", "DOTNET_SHARED_STORE",
    // zsh's startup files, PHP's ini (auto_prepend_file, extensions): probe CC3.
    "ZDOTDIR", "PHPRC", "PHP_INI_SCAN_DIR"};

// The PYTHON* variables known to change no code that runs (buffering, encodings from the
// standard library's own package, hashing, limits, diagnostics that import nothing). Every
// other one is refused: PYTHONPATH, PYTHONHOME, PYTHONPLATLIBDIR and PYTHONUSERBASE move
// imports, PYTHONPYCACHEPREFIX loads bytecode from elsewhere, PYTHONSTARTUP and
// PYTHONINSPECT run code read from a file or from stdin (the MCP channel), and
// PYTHONWARNINGS and PYTHONBREAKPOINT import modules by name; a variable a later Python
// adds is refused until it is known.
constexpr std::array<std::string_view, 9> kInertPythonVariables = {
    "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED", "PYTHONFAULTHANDLER", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
    "PYTHONINTMAXSTRDIGITS"};


}  // namespace

bool EnvironmentLoadsCode(std::string_view name) {
  const auto listed = [name](const auto& names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (name.substr(0, 3) == "LD_") return true;
  // Bash imports an exported function from BASH_FUNC_<name>%%: it overrides a command.
  if (name.substr(0, 10) == "BASH_FUNC_") return true;
  // OpenSSL's configuration names provider and engine modules that libcrypto loads — in
  // Node at every start, in Python at `import hashlib` (OPENSSL_CONF, OPENSSL_MODULES,
  // OPENSSL_ENGINES, OPENSSL_CONF_INCLUDE; probe BW2); none of its variables is needed to
  // serve. CORECLR_PROFILER_PATH* loads a native library into a .NET process, and
  // DOTNET_ROOT* names the runtime a .NET host loads (probe CA2).
  if (name.substr(0, 8) == "OPENSSL_" || name.substr(0, 16) == "CORECLR_PROFILER" ||
      name.substr(0, 11) == "DOTNET_ROOT" ||
      // Lua runs LUA_INIT* (code, or @file) at start and loads modules from LUA_[C]PATH*.
      name.substr(0, 8) == "LUA_INIT" || name.substr(0, 8) == "LUA_PATH" ||
      name.substr(0, 9) == "LUA_CPATH") {
    return true;
  }
  if (name.substr(0, 6) == "PYTHON") return !listed(kInertPythonVariables);
  return listed(kCodeLoadingVariables);
}

bool SameBytesAs(const std::string& path, uint64_t size, const Sha256Digest& digest) {
  struct Known {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};
    std::optional<Sha256Digest> sha256;
  };
  static std::mutex mu;
  static std::map<std::string, Known> known;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) != size) {
    return false;
  }
  std::lock_guard lock(mu);
  Known& entry = known[path];
  if (!entry.sha256 || entry.device != st.st_dev || entry.inode != st.st_ino ||
      entry.size != st.st_size || entry.modified.tv_sec != st.st_mtim.tv_sec ||
      entry.modified.tv_nsec != st.st_mtim.tv_nsec) {
    Result<Sha256Digest> hashed = Sha256OfFile(fd.get());
    if (!hashed.ok()) return false;
    entry = Known{st.st_dev, st.st_ino, st.st_size, st.st_mtim, *hashed};
  }
  return *entry.sha256 == digest;
}

Interpreter InterpreterOf(std::string_view command, uint64_t command_size,
                          const Sha256Digest& command_sha256, std::string_view node_executable) {
  if (command == kSystemPython) return Interpreter::kPython;
  if (!node_executable.empty() && command == node_executable) return Interpreter::kNode;
  const std::string name = std::filesystem::path(command).filename().string();
  if (IsPythonName(name)) return Interpreter::kPython;
  if (name == "node" || name == "nodejs") return Interpreter::kNode;
  if (SameBytesAs(std::string(kSystemPython), command_size, command_sha256)) {
    return Interpreter::kPython;
  }
  if (!node_executable.empty() &&
      SameBytesAs(std::string(node_executable), command_size, command_sha256)) {
    return Interpreter::kNode;
  }
  return Interpreter::kNone;
}

VerdictOr<size_t> ScriptOperandIndex(Interpreter interpreter, const std::vector<std::string>& argv,
                                     std::string_view surface) {
  const std::string who = "surface " + std::string(surface) + ": ";
  const std::string language = interpreter == Interpreter::kPython ? "Python" : "Node";
  size_t at = 1;
  std::string python_flags;  // every single-letter flag given, for -E below
  while (at < argv.size()) {
    const std::string_view arg = argv[at];
    if (arg == "--") {
      ++at;
      break;
    }
    if (arg.empty() || arg[0] != '-' || arg == "-") break;
    const size_t length = interpreter == Interpreter::kPython ? PythonOptionLength(argv, at)
                                                              : (IsNodeFlag(arg) ? 1 : 0);
    if (length == 0) {
      return Reject(Reason::kCodeNotPinned,
                    who + language + " option " + Shown(arg) +
                        " before the script: Las pins the script an interpreter runs and "
                        "allows only options that load no other code (docs/RELEASES.md)");
    }
    if (arg[1] != 'W' && arg[1] != 'X') python_flags += arg.substr(1);
    at += length;
  }
  // -E ignores PYTHONNOUSERSITE, which Las sets so that no child imports the user's
  // site-packages (probe DD3): only with -s, -I or -S, which keep them out themselves.
  if (interpreter == Interpreter::kPython && python_flags.find('E') != std::string::npos &&
      python_flags.find_first_of("sIS") == std::string::npos) {
    return Reject(Reason::kCodeNotPinned,
                  who + "Python option -E without -s, -I or -S: it ignores PYTHONNOUSERSITE, "
                        "and the user's site-packages would run before the script");
  }
  if (at >= argv.size()) {
    return Reject(Reason::kCodeNotPinned, who + "the " + language +
                                              " command names no script file to pin");
  }
  if (argv[at].empty() || argv[at] == "-") {
    return Reject(Reason::kCodeNotPinned,
                  who + "the " + language + " program " + Shown(argv[at]) +
                      " is not a file Las can pin");
  }
  return at;
}

}  // namespace las::trust
