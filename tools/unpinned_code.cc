#include "tools/unpinned_code.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

namespace las::tools {
namespace {

bool IsShell(std::string_view path) {
  static const std::set<std::string, std::less<>> kShells = {
      "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "csh", "tcsh"};
  return kShells.count(std::filesystem::path(path).filename().string()) != 0;
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

std::optional<std::string> VirtualEnvNote(const std::string& command) {
  const std::filesystem::path bin = std::filesystem::path(command).parent_path();
  for (const std::filesystem::path& dir : {bin, bin.parent_path()}) {
    std::error_code error;
    const std::filesystem::path config = dir / "pyvenv.cfg";
    if (!std::filesystem::is_regular_file(config, error)) continue;
    return "the interpreter belongs to the virtual environment " + dir.string() +
           " (pyvenv.cfg): its site-packages run at every start, before the script (.pth "
           "files, sitecustomize), and the release does not bind them, so an edit there is "
           "not caught at admission (/usr/bin/python3 runs no such directory of yours)";
  }
  return std::nullopt;
}

}  // namespace las::tools
