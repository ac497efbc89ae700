#include "trust/python_stdlib.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "trust/interpreter_argv.h"
#include "trust/launch_policy.h"

namespace las::trust {
namespace {

namespace fs = std::filesystem;

// The `home` a pyvenv.cfg names, its key in any case as CPython reads it (probe GE4).
std::optional<fs::path> VirtualEnvHome(const fs::path& config_file) {
  std::ifstream config(config_file);
  std::string line;
  auto trim = [](std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\r");
    const size_t last = text.find_last_not_of(" \t\r");
    return first == std::string_view::npos ? std::string()
                                           : std::string(text.substr(first, last - first + 1));
  };
  while (std::getline(config, line)) {
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string key = trim(std::string_view(line).substr(0, equals));
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (key == "home") return fs::path(trim(std::string_view(line).substr(equals + 1)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> VirtualEnvConfig(const std::string& command) {
  const fs::path bin = fs::path(command).lexically_normal().parent_path();
  for (const fs::path& dir : {bin, bin.parent_path()}) {
    std::error_code error;
    if (fs::exists(dir / "pyvenv.cfg", error)) return (dir / "pyvenv.cfg").string();
  }
  return std::nullopt;
}

std::string SystemPythonHome() {
  std::error_code error;
  const fs::path system = fs::canonical(std::string(kSystemPython), error);
  if (error) return "";
  return system.parent_path().parent_path().string();  // /usr/bin/python3.11 -> /usr
}

std::optional<std::string> UnpinnedPythonStartup(const std::string& command, const std::string& resolved,
                                                 const std::string& workspace) {
  // As CPython's site.venv() reads argv[0]: made absolute and lexically normal (`./`, `..`:
  // probe GI1), links not chased.
  const fs::path bin = fs::path(command).lexically_normal().parent_path();
  if (const std::optional<std::string> config = VirtualEnvConfig(command)) {
    std::error_code error;
    const fs::path venv = *config;
    if (!fs::is_regular_file(venv, error)) return venv.string() + " is not a regular file";
    // Wherever the pyvenv.cfg is, the environment's prefix — its site-packages — is the
    // directory above the executable's (probe GI3: beside a copy at the workspace's root,
    // it was the workspace's parent).
    const fs::path prefix = fs::canonical(bin.parent_path(), error);
    if (error || !IsInsideDirectory(workspace, prefix.string())) {
      return venv.string() + " makes it a virtual environment rooted at " +
             bin.parent_path().string() + ", outside the workspace " + workspace +
             ", whose site-packages run at its start";
    }
    if (std::optional<fs::path> home = VirtualEnvHome(venv)) {
      const fs::path system_bin = fs::canonical(std::string(kSystemPython), error).parent_path();
      const fs::path named = fs::canonical(*home, error);
      if (error || named != system_bin) {
        return venv.string() + " names home " + home->string() +
               ": the environment was made by another Python than " + std::string(kSystemPython);
      }
    }
  }
  for (const fs::path& dir : {fs::path(resolved).parent_path(), bin}) {
    std::error_code error;
    if (fs::exists(dir / "pybuilddir.txt", error)) {
      return (dir / "pybuilddir.txt").string() +
             " makes it a build tree's, whose standard library is that tree's";
    }
    // `<executable name or stem>._pth` replaces sys.path; any such file beside it is
    // refused rather than matched to CPython's naming.
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (name.size() > 5 && name.ends_with("._pth")) {
        return it->path().string() + " would replace its module search path";
      }
    }
  }
  return std::nullopt;
}

bool IsSystemPython(const std::string& resolved) {
  std::error_code error;
  const fs::path system = fs::canonical(std::string(kSystemPython), error);
  if (error) return false;
  const fs::path file = fs::canonical(resolved, error);
  return !error && file == system;
}

bool IgnoresPythonHome(const std::vector<std::string>& argv, size_t script_index) {
  for (size_t i = 1; i < script_index && i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') continue;
    for (size_t c = 1; c < arg.size(); ++c) {
      if (arg[c] == 'E' || arg[c] == 'I') return true;
      if (arg[c] == 'W' || arg[c] == 'X') {  // the rest, or the next argument, is its value
        if (c + 1 == arg.size()) ++i;
        break;
      }
    }
  }
  return false;
}

}  // namespace las::trust
