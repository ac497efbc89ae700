#include "trust/shebang.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "base/unique_fd.h"
#include "trust/digest.h"
#include "trust/interpreter_argv.h"
#include "trust/launch_policy.h"

namespace las::trust {
namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

std::vector<std::string> SplitAtBlanks(std::string_view text) {
  std::vector<std::string> words;
  while (!(text = Trim(text)).empty()) {
    const size_t end = std::min(text.find_first_of(kBlanks), text.size());
    words.emplace_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return words;
}

Verdict NotPinned(std::string_view who, const std::string& what) {
  return Reject(Reason::kCodeNotPinned,
                std::string(who) + "the script's #! line " + what +
                    ": Las pins the script's bytes, not what its #! line runs "
                    "(docs/RELEASES.md)");
}

// `program` as exec finds it: a path as written, else the first executable in kChildPath.
std::optional<std::string> Locate(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  std::string_view dirs = kChildPath;
  while (!dirs.empty()) {
    const size_t end = std::min(dirs.find(':'), dirs.size());
    const std::string candidate = std::string(dirs.substr(0, end)) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs.remove_prefix(std::min(end + 1, dirs.size()));
  }
  return std::nullopt;
}

// Whether the file at `resolved` (a resolved path) is `reference`: the same resolved path,
// or the same bytes (a copy or a hard link). Never by name: a pyenv shim, or pdb3 or nice
// under an interpreter's or a shell's name, is another program (probe DE1).
bool IsFile(const std::string& resolved, const std::string& reference) {
  char real[PATH_MAX];
  if (reference.empty() || ::realpath(reference.c_str(), real) == nullptr) return false;
  if (resolved == real) return true;
  struct stat mine {}, theirs {};
  if (::stat(resolved.c_str(), &mine) != 0 || ::stat(real, &theirs) != 0 ||
      mine.st_size != theirs.st_size) {
    return false;  // hashed only when the sizes agree
  }
  UniqueFd file(::open(resolved.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.valid()) return false;
  // No more than the size compared: a file that grows while it is hashed is not that one.
  Result<Sha256Digest> digest = Sha256OfFile(file.get(), static_cast<uint64_t>(mine.st_size));
  return digest.ok() && SameBytesAs(real, static_cast<uint64_t>(mine.st_size), *digest);
}

// The system Python or the configured Node, by the file `resolved` is.
Interpreter InterpreterAt(const std::string& resolved, std::string_view node_executable) {
  if (IsFile(resolved, std::string(kSystemPython))) return Interpreter::kPython;
  if (IsFile(resolved, std::string(node_executable))) return Interpreter::kNode;
  return Interpreter::kNone;
}

// A shell of the system: a file of /usr/bin or /bin, resolved, under a shell's name.
bool IsShell(const std::string& resolved) {
  const std::filesystem::path path(resolved);
  const std::string dir = path.parent_path().string();
  if (dir != "/usr/bin" && dir != "/bin") return false;
  const std::string name = path.filename().string();
  for (std::string_view shell : {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"}) {
    if (name == shell) return true;
  }
  return false;
}

// A shell's `#!` arguments: none, or flags that change no input — -e, -f, -u, -v, -x, and
// -o with pipefail, errexit, nounset, noglob, xtrace. A shell given an operand (a file), -s
// (stdin: the MCP channel), -c, -i or -l (startup files) runs something else (probe DE2).
bool ReadableShellArguments(const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.size() < 2 || word[0] != '-' ||
        word.find_first_not_of("efuvxo", 1) != std::string::npos) {
      return false;
    }
    if (word.find('o') == std::string::npos) continue;
    if (word.back() != 'o' || word.find('o') != word.size() - 1 || ++i == words.size()) {
      return false;
    }
    const std::string& option = words[i];
    if (option != "pipefail" && option != "errexit" && option != "nounset" &&
        option != "noglob" && option != "xtrace") {
      return false;
    }
  }
  return true;
}

// env's words: the program they run and its arguments (program "" when none), or a refusal.
// Only what reads the same to GNU env and to this reading passes: no quoting, escapes,
// `${VAR}` or `#` in an -S string (env would remove, expand or end there; probes CZ F2,
// DD4), no nested -S, no option but `--` (-i and -u would drop PYTHONNOUSERSITE: probe DD3),
// no PATH (env would search it), HOME or PYTHONNOUSERSITE.
VerdictOr<Shebang> ThroughEnv(const std::vector<std::string>& arguments, std::string_view who) {
  std::vector<std::string> words = arguments;
  if (words.size() == 1 && (words[0].starts_with("-S") || words[0].starts_with("--split-string"))) {
    const std::string line = words[0];
    if (line.find_first_of("\"'\\$#") != std::string::npos) {
      return NotPinned(who, "gives env -S quoting, escapes, variables or a comment, which Las "
                            "does not read");
    }
    words = SplitAtBlanks(line);
    if (words[0] == "-S" || words[0] == "--split-string") {
      words.erase(words.begin());
    } else if (words[0].starts_with("-S")) {
      words[0] = words[0].substr(2);  // -Sprog
    } else {
      words[0] = words[0].substr(words[0].find('=') + 1);  // --split-string=prog
    }
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const bool end_of_options = word == "--";
    if (end_of_options && ++i == words.size()) break;
    const std::string& program = words[i];
    if (!end_of_options && program.starts_with("-")) {
      return NotPinned(who, "gives env the option " + program + ", which Las does not read");
    }
    if (const size_t eq = program.find('='); !end_of_options && eq != std::string::npos) {
      const std::string_view name = std::string_view(program).substr(0, eq);
      if (name == "PATH" || name == "HOME" || name == "PYTHONNOUSERSITE") {
        return NotPinned(who, "sets " + std::string(name) + ", which changes what runs");
      }
      if (EnvironmentLoadsCode(name)) {
        return NotPinned(who, "sets " + std::string(name) + ", which makes the child load code");
      }
      continue;
    }
    return Shebang{program, std::vector<std::string>(words.begin() + static_cast<long>(i) + 1, words.end())};
  }
  return Shebang{};
}

// `program` as exec finds it with every symlink followed, or a refusal: relative (to
// whatever the cwd is), not found (`required`: else nullopt, the exec fails and runs
// nothing), or inside the workspace.
// A `#!` program as exec finds it (`located`: as written or found on kChildPath) and the
// file that is (`resolved`: links chased).
struct Found {
  std::string located;
  std::string resolved;
};

VerdictOr<std::optional<Found>> Resolve(const std::string& program, bool search_path,
                                        bool required, std::string_view workspace,
                                        std::string_view who) {
  if (program.front() != '/' && (!search_path || program.find('/') != std::string::npos)) {
    return NotPinned(who, "names the relative program " + program);
  }
  const std::optional<std::string> located = search_path ? Locate(program) : program;
  char resolved[PATH_MAX];
  if (!located || ::realpath(located->c_str(), resolved) == nullptr) {
    if (required) return NotPinned(who, "has env run " + program + ", which is not found");
    return std::optional<Found>();
  }
  if (IsInsideDirectory(workspace, resolved)) {
    return NotPinned(who, "runs " + program + ", which resolves to " + resolved +
                              " inside the workspace");
  }
  return std::optional<Found>(Found{*located, resolved});
}

}  // namespace

std::optional<Shebang> ParseShebang(std::string_view head) {
  if (!head.starts_with("#!")) return std::nullopt;
  Shebang shebang;
  // Linux reads 256 bytes and needs the line's end among them: a longer line reads otherwise
  // there (probe DD4: a byte more here, and an option became `-`, the program from stdin).
  const size_t newline = head.substr(0, kShebangBytes).find('\n');
  shebang.cut = newline == std::string_view::npos && head.size() >= kShebangBytes;
  head = Trim(head.substr(2, newline == std::string_view::npos ? std::string_view::npos : newline - 2));
  const size_t end = std::min(head.find_first_of(kBlanks), head.size());
  shebang.program = std::string(head.substr(0, end));
  if (const std::string_view rest = Trim(head.substr(end)); !rest.empty()) {
    shebang.arguments.emplace_back(rest);
  }
  return shebang;
}

Verdict CheckShebang(const Shebang& shebang, std::string_view workspace,
                     std::string_view node_executable, std::string_view who) {
  if (shebang.cut) return NotPinned(who, "has no end in the 256 bytes Linux reads of it");
  for (const std::string& text : {shebang.program, shebang.arguments.empty() ? "" : shebang.arguments[0]}) {
    if (std::any_of(text.begin(), text.end(), [](char c) {
          return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
        })) {
      return NotPinned(who, "holds a control character (a CR line end?)");
    }
  }
  if (shebang.program.empty()) return Verdict::Accept();  // no program: the exec fails
  Shebang run = shebang;
  auto where = Resolve(run.program, /*search_path=*/false, /*required=*/false, workspace, who);
  if (!where.ok()) return where.verdict();
  if (!where->has_value()) return Verdict::Accept();
  Found found = **where;
  std::string& resolved = found.resolved;
  if (IsFile(resolved, "/usr/bin/env")) {
    VerdictOr<Shebang> through = ThroughEnv(run.arguments, who);
    if (!through.ok()) return through.verdict();
    run = std::move(through).value();
    if (run.program.empty()) return Verdict::Accept();  // env alone prints its environment
    where = Resolve(run.program, /*search_path=*/true, /*required=*/true, workspace, who);
    if (!where.ok()) return where.verdict();
    found = **where;
    if (IsFile(resolved, "/usr/bin/env")) return NotPinned(who, "has env run env");
  }
  const Interpreter interpreter = InterpreterAt(resolved, node_executable);
  if (interpreter == Interpreter::kPython) {
    // Python finds its library, or a virtual environment's, around the program as named:
    // only the system's own directory is the operator's. A copy or a venv elsewhere ran a
    // library planted above it before the script (probe GG1).
    // The directory as written: CPython searches from it, not from where its links lead
    // (probe GI2: a link to /usr/bin inside the workspace found a library planted above).
    const std::filesystem::path dir = std::filesystem::path(found.located).lexically_normal().parent_path();
    if (dir != "/usr/bin" && dir != "/bin") {
      return NotPinned(who, "runs Python as " + found.located +
                                ", not from the system's /usr/bin: its library, or a virtual "
                                "environment's, would be found around it; name /usr/bin/python3");
    }
  }
  if (interpreter == Interpreter::kNone) {
    // Any other program's options and what it runs cannot be read: a wrapper (`nice
    // ./x`) runs an unchecked program, a script-interpreter (`pdb3`) its own files (probe
    // DD1, DD2). Shells run other files too, which draft notes (tools/unpinned_code.h).
    if (!IsShell(resolved)) {
      return NotPinned(who, "runs " + run.program + ", which is not env, a shell of the system, "
                                                    "/usr/bin/python3 or the Node executable LAS_NODE names");
    }
    // Without env, Linux hands the shell one argument, blanks and all.
    if (!ReadableShellArguments(run.arguments)) {
      return NotPinned(who, "gives the shell arguments other than -e, -f, -u, -v, -x or (through "
                            "env -S) -o pipefail|errexit|nounset|noglob|xtrace, which would "
                            "run something else than the script");
    }
    return Verdict::Accept();
  }
  std::vector<std::string> argv{run.program};
  argv.insert(argv.end(), run.arguments.begin(), run.arguments.end());
  argv.push_back("SCRIPT");  // where the kernel puts the script's path
  VerdictOr<size_t> script = ScriptOperandIndex(interpreter, argv, "");
  if (!script.ok()) {
    // Its detail, past the "surface : " it begins with for the empty surface name.
    const std::string& detail = script.verdict().detail();
    return Reject(Reason::kCodeNotPinned,
                  std::string(who) + "the script's #! line: " +
                      detail.substr(std::min(detail.size(), std::string_view("surface : ").size())));
  }
  if (*script != argv.size() - 1) {
    return NotPinned(who, "makes " + run.program + " run " + argv[*script] + ", not the script");
  }
  return Verdict::Accept();
}

}  // namespace las::trust
