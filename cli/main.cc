// las: the command-line face of the Las gateway. Flag parsing and printing only; every
// verb calls the libraries (see docs/CLI.md for verbs and exit codes).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/commands.h"
#include "cli/exit_codes.h"

int main(int argc, char** argv) {
  CLI::App app{"las — a signed, audited MCP federation gateway"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "las 0.1.0");
  int exit_code = las::cli::kExitOk;
  las::cli::RegisterReplay(app, exit_code);
  las::cli::RegisterServe(app, exit_code);
  las::cli::RegisterList(app, exit_code);
  las::cli::RegisterDaemon(app, exit_code);
  las::cli::RegisterInspect(app, exit_code);
  las::cli::RegisterRelease(app, exit_code);
  las::cli::RegisterCheck(app, exit_code);
  las::cli::RegisterOnboarding(app, exit_code);
  las::cli::RegisterSources(app, exit_code);
  las::cli::RegisterEvents(app, exit_code);
  las::cli::RegisterGrants(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : las::cli::kExitUsage;
  }
  // Output that did not reach stdout (a full disk, a closed file) is a failure: a grant id,
  // a key id or an audit transcript was lost.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "las: io: writing to standard output failed: %s\n", std::strerror(errno));
    if (exit_code == las::cli::kExitOk) exit_code = las::cli::ExitCodeFor(las::IoError(""));
  }
  return exit_code;
}
