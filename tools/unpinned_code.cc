#include "tools/unpinned_code.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "trust/python_stdlib.h"

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

constexpr std::string_view kWhatToDo =
    ": the release binds its bytes, not what it runs, so an edit to those files is not "
    "caught at admission (bind the program itself where you can: python3 or node with its "
    "script)";

}  // namespace

std::optional<std::string> UnpinnedCodeNote(const std::string& command) {
  if (IsShell(command)) return "the command is a shell" + std::string(kWhatToDo);
  std::ifstream file(command, std::ios::binary);
  std::array<char, 256> head{};
  file.read(head.data(), head.size());
  const std::string_view read(head.data(), static_cast<size_t>(file.gcount()));
  if (read.substr(0, 2) != "#!") return std::nullopt;
  const std::string line(read.substr(2, read.find('\n') == std::string_view::npos
                                            ? std::string_view::npos
                                            : read.find('\n') - 2));
  const std::string program = ShebangProgram(line);
  if (!IsShell(program)) return std::nullopt;
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

}  // namespace las::tools
