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
void RegisterInspect(CLI::App& app, int& exit_code);
void RegisterRelease(CLI::App& app, int& exit_code);
void RegisterCheck(CLI::App& app, int& exit_code);

}  // namespace las::cli
