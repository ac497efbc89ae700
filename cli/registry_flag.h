// `--registry FILE` of the commands that federate or list configured surfaces (`las serve`,
// `daemon`, `list`, `check`, `sources`, `onboarding check`). Left out, the built-in default
// registry applies (docs/REGISTRY.md). An empty value names no file: it is a usage error
// (exit 2), as `--log ""` is, rather than the default of twelve surfaces that an empty
// variable in a script would otherwise silently pick (probe AE9).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/path_flag.h"

namespace las::cli {

inline CLI::Option* AddRegistryFlag(CLI::App& cmd, std::string& file) {
  return cmd
      .add_option("--registry", file,
                  "Surface registry file (docs/REGISTRY.md); default: the twelve known surfaces")
      ->check(NonEmptyPath("leave the flag out for the built-in registry"));
}

}  // namespace las::cli
