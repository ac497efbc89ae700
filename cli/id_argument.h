// The id a command acts on (a grant, a rule, a source): an empty or blank one names
// nothing, so it is a usage error (exit 2), not "not found" with nothing printed as the id.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace las::cli {

inline CLI::Validator IdArgument() {
  return CLI::Validator(
      [](const std::string& id) {
        return id.find_first_not_of(" \t") == std::string::npos ? std::string("an empty id names nothing")
                                                                : std::string();
      },
      "ID");
}

}  // namespace las::cli
