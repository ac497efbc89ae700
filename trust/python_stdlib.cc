#include "trust/python_stdlib.h"

#include <filesystem>
#include <vector>

#include "trust/interpreter_argv.h"

namespace las::trust {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string SystemPythonHome() {
  std::error_code error;
  const fs::path system = fs::canonical(std::string(kSystemPython), error);
  if (error) return "";
  return system.parent_path().parent_path().string();  // /usr/bin/python3.11 -> /usr
}

std::optional<std::string> UnpinnedPythonStartup(const std::string& command, const std::string& resolved) {
  std::vector<fs::path> dirs = {fs::path(resolved).parent_path(), fs::path(command).parent_path()};
  // pyvenv.cfg is read beside the executable or one directory up.
  dirs.push_back(fs::path(command).parent_path().parent_path());
  for (size_t i = 0; i < dirs.size(); ++i) {
    const fs::path& dir = dirs[i];
    std::error_code error;
    const fs::path venv = dir / "pyvenv.cfg";
    if (fs::exists(venv, error) && !fs::is_regular_file(venv, error)) {
      return venv.string() + " is not a regular file";
    }
    if (i == 2) break;  // only pyvenv.cfg is read one directory up
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
