// A flag's value that is another flag. CLI11 gives a flag that takes a value the next word,
// whatever it is, so a value left out (an unquoted empty `$LOG`) takes the next flag or the
// `--` with it: `las serve --log --lazy` served into a new log `./--lazy` and was not lazy,
// `las release draft --manifest -- CMD` wrote a manifest named `--` (probe BI1). Such a
// value is a usage error (exit 2) naming the flag, checked once here for every flag of
// every verb, so a flag added later is covered too.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace las::cli {

// Adds the check to every option with a value in `app` and its sub-commands, at any depth;
// call once, after every verb is registered. Positional arguments (a child's command after
// `--`, an agent id) are left alone: they take no value from a flag.
//
// A path flag (--log, --registry, --manifest, ...; the list is in flag_values.cc) refuses
// any value that begins with '-', the message saying to give such a path as ./-x. Any
// other flag refuses "-" and a value in the form of a flag ("-n", "--json", "--"), but
// takes "-1" (whose number check then speaks) or "-x y" as text. An empty path is each
// path flag's own check (cli/path_flag.h). A value joined to its flag by '=' in one word
// of `words` (the command line: `--reason=--weird`, `--log=-x`) was given on purpose and
// is taken, whatever it looks like; `--name=` with nothing after the '=' gives no value,
// and the next word, which CLI11 would take instead, is refused. An on/off flag given as
// `--name=` (nothing after the '=') is refused too: CLI11 would read it as on.
void RefuseFlagsAsValues(CLI::App& app, const std::vector<std::string>& words);

}  // namespace las::cli
