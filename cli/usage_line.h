// The one-line usage error of every `las` command (docs/CLI.md).
//
// Thread safety: pure functions of CLI11's parse state.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace las::cli {

// A usage error on one line, like every other error (docs/CLI.md): "las VERB:
// invalid_argument: what (see `las VERB --help`)" — the code of exit 2, as the verbs' own
// argument checks print it. CLI11's own is two lines without the verb, quotes the flags as
// typed, and words some cases for its own developers.
// `separated`: the command line holds a `--` (what follows it is a child's command line);
// `before_separator`: the words before it (all of them without one).
std::string UsageLine(const CLI::App* app, const CLI::Error& error, bool separated,
                      const std::vector<std::string>& before_separator);

}  // namespace las::cli
