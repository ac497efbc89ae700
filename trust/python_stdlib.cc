#include "trust/python_stdlib.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "trust/interpreter_argv.h"

namespace las::trust {
namespace {

namespace fs = std::filesystem;

fs::path Canonical(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::canonical(path, error);
  return error ? fs::path() : canonical;
}

bool Exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// "python3.11" for the system Python, from the file /usr/bin/python3 names; "" if none.
std::string SystemPythonName() {
  const fs::path system = Canonical(std::string(kSystemPython));
  const std::string name = system.filename().string();
  return name.starts_with("python3.") ? name : std::string();
}

struct VirtualEnv {
  fs::path config;                // the pyvenv.cfg found; empty if none
  bool regular = true;            // a FIFO there would hold the launch while read
  std::optional<fs::path> home;   // its `home`, if it names one
};

// The pyvenv.cfg beside `command` (or one directory up), and the `home` it names.
VirtualEnv VirtualEnvOf(const fs::path& command) {
  const fs::path bin = command.parent_path();
  for (const fs::path& dir : {bin, bin.parent_path()}) {
    std::error_code error;
    if (!fs::exists(dir / "pyvenv.cfg", error)) continue;
    VirtualEnv venv{dir / "pyvenv.cfg", fs::is_regular_file(dir / "pyvenv.cfg", error), {}};
    if (!venv.regular) return venv;
    std::ifstream config(venv.config);
    if (!config) continue;
    std::string line;
    while (std::getline(config, line)) {
      const size_t equals = line.find('=');
      if (equals == std::string::npos) continue;
      auto trim = [](std::string_view text) {
        const size_t first = text.find_first_not_of(" \t\r");
        const size_t last = text.find_last_not_of(" \t\r");
        return first == std::string_view::npos ? std::string()
                                               : std::string(text.substr(first, last - first + 1));
      };
      if (trim(std::string_view(line).substr(0, equals)) == "home") {
        venv.home = fs::path(trim(std::string_view(line).substr(equals + 1)));
        return venv;
      }
    }
    return venv;  // a venv without `home`: CPython goes on from the executable
  }
  return {};
}

// The first directory at or above `start` holding `landmark`, canonical; empty if none.
fs::path SearchUp(fs::path start, const fs::path& landmark) {
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (Exists(dir / landmark)) return Canonical(dir / landmark);
    if (dir == dir.root_path() || dir.empty()) return fs::path();
  }
}

}  // namespace

std::optional<std::string> ForeignPythonLibrary(const std::string& command, const std::string& resolved) {
  const std::string name = SystemPythonName();
  if (name.empty()) return std::nullopt;
  const fs::path stdlib = fs::path("lib") / name;
  const fs::path system_stdlib = Canonical(fs::path("/usr") / stdlib);
  const fs::path system_dynload = Canonical(fs::path("/usr") / stdlib / "lib-dynload");
  if (system_stdlib.empty()) return std::nullopt;

  std::vector<fs::path> starts;
  const VirtualEnv venv = VirtualEnvOf(command);
  if (!venv.regular) return venv.config.string() + " is not a regular file";
  if (venv.home) {
    starts.push_back(*venv.home);
  } else {
    starts.push_back(fs::path(resolved).parent_path());
    starts.push_back(fs::path(command).parent_path());  // as argv[0] names it, conservatively
  }
  for (const fs::path& start : starts) {
    if (Exists(start / "pybuilddir.txt")) {
      return "it is a build tree's (" + (start / "pybuilddir.txt").string() +
             "), whose standard library is that tree's";
    }
    const fs::path library = SearchUp(start, stdlib / "os.py").parent_path();
    if (library != system_stdlib) {
      return "it would take its standard library from " +
             (library.empty() ? std::string("no directory found") : library.string()) +
             ", not the system's " + system_stdlib.string();
    }
    const fs::path dynload = SearchUp(start, stdlib / "lib-dynload");
    if (!system_dynload.empty() && dynload != system_dynload) {
      return "it would take its native modules from " +
             (dynload.empty() ? std::string("no directory found") : dynload.string()) +
             ", not the system's " + system_dynload.string();
    }
  }
  return std::nullopt;
}

}  // namespace las::trust
