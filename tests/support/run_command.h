// Runs a program to completion and captures its exit code, stdout and stderr: for tests of
// the `las` executable as an operator would use it.
#pragma once

#include <string>
#include <vector>

namespace las::testing {

struct CommandResult {
  int exit_code = -1;  // -1 if killed by a signal
  std::string out;
  std::string err;
};

// argv[0] must be an absolute path. Extra environment entries ("NAME=value") are added,
// each in place of an inherited entry of its name.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env = {});

// `argv` run as user and group 65534 (nobody) when this process is root — who reads and
// writes every file, so a permission test must drop to another user to see a refusal —
// and as it is otherwise.
std::vector<std::string> AsUnprivilegedUser(std::vector<std::string> argv);

// Splits on '\n', dropping a final empty piece.
std::vector<std::string> Lines(const std::string& text);

}  // namespace las::testing
