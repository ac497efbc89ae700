#include "tools/unpinned_code.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/durable_files.h"
#include "base/path_exposure.h"
#include "trust/interpreter_argv.h"
#include "trust/python_stdlib.h"
#include "trust/shebang.h"

namespace las::tools {
namespace {

constexpr std::array<std::string_view, 11> kShellNames = {
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "csh", "tcsh"};

bool IsShellName(std::string_view path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return std::find(kShellNames.begin(), kShellNames.end(), name) != kShellNames.end();
}

bool SameBytes(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::ifstream left(a, std::ios::binary);
  std::ifstream right(b, std::ios::binary);
  if (!left || !right) return false;
  std::array<char, 64 * 1024> x{};
  std::array<char, 64 * 1024> y{};
  while (left && right) {
    left.read(x.data(), x.size());
    right.read(y.data(), y.size());
    if (left.gcount() != right.gcount() ||
        !std::equal(x.begin(), x.begin() + left.gcount(), y.begin())) {
      return false;
    }
  }
  return !left && !right;
}

// A shell by its name, or a copy of an installed shell under any name (probe CI5): the
// name is the operator's choice, the bytes are not.
bool IsShell(std::string_view path) {
  if (IsShellName(path)) return true;
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return false;
  for (const std::string_view dir : {"/usr/bin/", "/bin/"}) {
    for (const std::string_view name : kShellNames) {
      const std::filesystem::path shell = std::string(dir) + std::string(name);
      std::error_code shell_error;
      if (std::filesystem::file_size(shell, shell_error) != size || shell_error) continue;
      if (SameBytes(path, shell)) return true;
    }
  }
  return false;
}

// The program a `#!` line runs: its first word, or env's first operand that is no option.
std::string ShebangProgram(const std::string& line) {
  std::istringstream words(line);
  std::vector<std::string> parts;
  for (std::string word; words >> word;) parts.push_back(word);
  if (parts.empty()) return {};
  if (std::filesystem::path(parts[0]).filename() != "env") return parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty() || parts[i][0] == '-' || parts[i].find('=') != std::string::npos) continue;
    return parts[i];
  }
  return {};
}

// The text after `#!` on the first line of the file at `path`, or "" when it has none.
std::string ShebangLine(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::array<char, trust::kShebangBytes> head{};
  file.read(head.data(), head.size());
  const std::string_view read(head.data(), static_cast<size_t>(file.gcount()));
  if (read.substr(0, 2) != "#!") return {};
  return std::string(read.substr(2, read.find('\n') == std::string_view::npos ? std::string_view::npos
                                                                             : read.find('\n') - 2));
}

constexpr std::string_view kWhatToDo =
    ": the release binds its bytes, not what it runs, so an edit to those files is not "
    "caught at admission (bind the program itself where you can: python3 or node with its "
    "script)";

}  // namespace

std::optional<std::string> UnpinnedCodeNote(const std::string& command) {
  if (IsShell(command)) return "the command is a shell" + std::string(kWhatToDo);
  const std::string program = ShebangProgram(ShebangLine(command));
  if (program.empty() || !IsShell(program)) return std::nullopt;
  return "the command is a script run by " + program + std::string(kWhatToDo);
}

std::vector<std::string> UnboundFileNotes(const std::vector<std::string>& argv,
                                          const std::string& cwd, std::optional<size_t> bound) {
  auto resolve = [&cwd](std::string_view text) {
    const std::filesystem::path operand(text);
    return (operand.is_absolute() ? operand : std::filesystem::path(cwd) / operand).lexically_normal();
  };
  const std::optional<std::filesystem::path> script =
      bound && *bound < argv.size() ? std::optional(resolve(argv[*bound])) : std::nullopt;
  std::vector<std::string> notes;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (i == bound) continue;
    // A path is an operand, or the value of an option spelled `--opt=PATH` (probe CN6).
    std::string_view text = argv[i];
    if (const size_t eq = text.find('='); text.starts_with("-") && eq != std::string_view::npos) {
      text.remove_prefix(eq + 1);
    }
    if (text.empty()) continue;
    const std::filesystem::path path = resolve(text);
    if (path == script) continue;  // the bound script, named again
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(path, error);
    const bool file = std::filesystem::is_regular_file(status);
    if (!file && !std::filesystem::is_directory(status)) continue;
    notes.push_back("argv[" + std::to_string(i) + "] \"" + argv[i] + "\" names " +
                    (file ? "a file" : "a directory") +
                    " the release does not bind: if the command runs or loads it (a directory: "
                    "code in it), an edit to it is not caught at admission");
  }
  return notes;
}

std::optional<std::string> VirtualEnvNote(const std::string& command) {
  // Found as CPython and the launch check find it (trust/python_stdlib.h).
  if (const std::optional<std::string> config = trust::VirtualEnvConfig(command)) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(*config, error)) return std::nullopt;
    return "the interpreter belongs to the virtual environment " +
           std::filesystem::path(*config).parent_path().string() +
           " (pyvenv.cfg): its site-packages run at every start, before the script (.pth "
           "files, sitecustomize), and the release does not bind them, so an edit there is "
           "not caught at admission (/usr/bin/python3 runs no such directory of yours)";
  }
  return std::nullopt;
}

std::vector<std::string> NodeModuleNotes(const std::string& script, const std::string& workspace,
                                         const std::string& node) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path root = fs::weakly_canonical(workspace, error);
  if (error || root.empty()) return {};
  const fs::path code = fs::weakly_canonical(script, error);
  auto inside = [&root](const fs::path& path) {
    const fs::path relative = path.lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
  };
  if (error || !inside(code)) return {};  // the launch check refuses it

  // Where Node looks outside the workspace, nearest first.
  std::vector<fs::path> module_dirs;
  for (fs::path dir = root; dir != dir.root_path();) {
    dir = dir.parent_path();
    module_dirs.push_back(dir / "node_modules");
  }
  std::error_code unresolved;  // then no prefix: nothing judged
  const fs::path prefix = fs::weakly_canonical(node, unresolved).parent_path().parent_path();
  // The system Node's own lib/node is the system's, like the Node itself; a copy's inside
  // the workspace is the workspace's.
  if (!prefix.empty() && prefix != "/usr" && prefix != "/" && !inside(prefix / "lib")) {
    module_dirs.push_back(prefix / "lib" / "node");
  }
  // The nearest package.json decides; one above the workspace only when none is inside.
  std::optional<fs::path> package_json;
  for (fs::path dir = code.parent_path();; dir = dir.parent_path()) {
    if (PathExists((dir / "package.json").string())) {
      if (!inside(dir)) package_json = dir / "package.json";
      break;
    }
    if (dir == dir.root_path()) break;
  }

  std::vector<std::string> found;
  std::optional<std::string> exposure_note;
  for (const fs::path& dir : module_dirs) {
    if (PathExists(dir.string())) found.push_back(dir.string());
    if (!exposure_note) {
      exposure_note = PathExposureNote(
          dir.string(),
          "the module directory " + dir.string() + " (Node looks there for a module imported by name)",
          "give the child code of theirs to run");
    }
  }
  if (package_json) found.push_back(package_json->string());
  std::vector<std::string> notes;
  if (!found.empty()) {
    std::string list;
    for (const std::string& path : found) list += (list.empty() ? "" : ", ") + path;
    notes.push_back("Node reads module code from outside the workspace that the release does not "
                    "bind, so an edit there is not caught at admission: " + list +
                    " (keep what the child imports inside the workspace)");
  }
  if (exposure_note) notes.push_back(std::move(*exposure_note));
  return notes;
}

std::vector<std::string> NodeSurfaceNotes(const trust::SurfaceBinding& surface,
                                          const trust::LaunchPolicy& policy) {
  if (surface.code) {
    std::error_code error;
    const uintmax_t size = std::filesystem::file_size(surface.command, error);
    if (error || trust::InterpreterOf(surface.command, size, surface.binary_sha256,
                                      policy.node_executable) != trust::Interpreter::kNode) {
      return {};
    }
    return NodeModuleNotes(surface.code->path, policy.workspace, surface.command);
  }
  // A script run by a `#!` line naming Node, directly or through env.
  const std::string program = ShebangProgram(ShebangLine(surface.command));
  const std::string name = std::filesystem::path(program).filename().string();
  if (name != "node" && name != "nodejs") return {};
  return NodeModuleNotes(surface.command, policy.workspace,
                         program.starts_with("/") ? program : policy.node_executable);
}

}  // namespace las::tools
