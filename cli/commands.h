// Each `las` verb registers itself on the application. The callback stores the verb's
// exit code in `exit_code`; all logic lives in the libraries.
#pragma once

namespace CLI {
class App;
}

namespace las::cli {

void RegisterReplay(CLI::App& app, int& exit_code);
void RegisterServe(CLI::App& app, int& exit_code);
void RegisterList(CLI::App& app, int& exit_code);
// `las daemon` (cli/serve_command.cc, docs/DAEMON.md).
void RegisterDaemon(CLI::App& app, int& exit_code);
void RegisterInspect(CLI::App& app, int& exit_code);
void RegisterRelease(CLI::App& app, int& exit_code);
void RegisterCheck(CLI::App& app, int& exit_code);
void RegisterOnboarding(CLI::App& app, int& exit_code);
// `sources` (cli/sources_command.cc) and `events tail` (cli/events_command.cc).
void RegisterSources(CLI::App& app, int& exit_code);
void RegisterEvents(CLI::App& app, int& exit_code);
// `grant`, `revoke`, `grants`, `rules` (cli/grant_command.cc).
void RegisterGrants(CLI::App& app, int& exit_code);

}  // namespace las::cli
